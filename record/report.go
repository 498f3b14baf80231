package record

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/validate"
)

// TextOptions say how Report.WriteText writes. The zero value writes the
// redactions only, with no prefix.
type TextOptions struct {
	// Prefix starts every line that is not a finding ("codexrec record: ").
	Prefix string
	// Validated writes the schema notes and findings too.
	Validated bool
	// Show is how many findings are listed; 0 means 10.
	Show int
}

// WriteText writes what the report says, masked, one line each: the redactions,
// then (Validated) how the schema was chosen and the findings, the first Show of
// them listed. It returns how many findings it left out.
func (r Report) WriteText(w io.Writer, o TextOptions) (more int) {
	if len(r.Redactions) > 0 {
		fmt.Fprintf(w, "%ssanitize: %s\n", o.Prefix, RedactionSummary(r.Redactions))
	}
	if !o.Validated {
		return 0
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "%s%s\n", o.Prefix, sanitize.MaskText(n))
	}
	if len(r.Findings) == 0 {
		if r.Schema.Schema != "" {
			fmt.Fprintf(w, "%sschema %s: no findings\n", o.Prefix, sanitize.MaskText(r.Schema.Schema))
		}
		return 0
	}
	fmt.Fprintf(w, "%sschema %s: %s\n", o.Prefix, sanitize.MaskText(r.Schema.Schema), validate.CountFindings(r.Findings))
	show := o.Show
	if show <= 0 {
		show = 10
	}
	for i, f := range r.Findings {
		if i == show {
			return len(r.Findings) - show
		}
		f := validate.Printable(f)
		method := f.Method
		if method == "" {
			method = "-"
		}
		fmt.Fprintf(w, "  %d %s %s %s %s: %s\n", f.Seq, f.Dir, method, f.Rule, validate.PointerText(f.Pointer), f.Reason)
	}
	return 0
}

// RedactionSummary is "3 secret(s) redacted (openai-key 2, known-secret 1)" for
// counts per rule.
func RedactionSummary(counts map[string]int) string {
	rules := make([]string, 0, len(counts))
	total := 0
	for r, n := range counts {
		rules = append(rules, r)
		total += n
	}
	sort.Strings(rules)
	parts := make([]string, len(rules))
	for i, r := range rules {
		parts[i] = fmt.Sprintf("%s %d", r, counts[r])
	}
	return fmt.Sprintf("%d secret(s) redacted (%s)", total, strings.Join(parts, ", "))
}
