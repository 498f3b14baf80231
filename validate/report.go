package validate

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/schema"
)

// WriteText writes one line per finding listed, one per rule and method of the
// findings only counted (Elided), and a closing line for the file with every
// finding counted; every text that came from the wire masked.
func (r *Result) WriteText(w io.Writer) error {
	for _, f := range r.Findings {
		f = Printable(f)
		if _, err := fmt.Fprintf(w, "%s:%d: %s %s %s %s: %s\n", r.File, f.Seq, f.Dir, orDash(f.Method), f.Rule, PointerText(f.Pointer), f.Reason); err != nil {
			return err
		}
	}
	for _, e := range r.Elided {
		of := "of " + orDash(sanitize.MaskText(e.Method))
		if e.Method == "*" {
			of = "of other methods"
		}
		if _, err := fmt.Fprintf(w, "%s: %d more %s findings %s, not listed (a file lists the first %d of a rule and method, %d of a rule)\n",
			r.File, e.Count, e.Rule, of, ExampleLimit, ruleLimit); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "%s: codex %s, schema %s: %d frames, %s\n", r.File, orDash(sanitize.MaskText(r.CodexVersion)),
		orDash(sanitize.MaskText(r.SchemaVersion)), r.Frames, countFindings(r.Findings, r.Elided))
	return err
}

// WriteJSONL writes one JSON object per finding listed, then one ElidedLine per
// rule and method of the findings only counted.
func (r *Result) WriteJSONL(w io.Writer) error {
	enc := json.NewEncoder(w)
	for _, f := range r.Findings {
		if err := enc.Encode(toFindingJSON(r.File, r.SchemaVersion, f)); err != nil {
			return err
		}
	}
	for _, e := range r.Elided {
		j := toElidedJSON(e)
		if err := enc.Encode(ElidedLine{File: r.File, SchemaVersion: sanitize.MaskText(r.SchemaVersion),
			Rule: j.Rule, Method: j.Method, Severity: j.Severity, Elided: j.Count}); err != nil {
			return err
		}
	}
	return nil
}

// ElidedLine is a line of WriteJSONL counting the findings of one rule and method
// past those listed (method "*": of the methods past those named one by one).
type ElidedLine struct {
	File          string `json:"file"`
	SchemaVersion string `json:"schemaVersion,omitempty"`
	Rule          string `json:"rule"`
	Method        string `json:"method,omitempty"`
	Severity      string `json:"severity"`
	Elided        int    `json:"elided"`
}

// Failed reports whether a finding of a rule fails accepts, listed or counted.
func (r *Result) Failed(fails func(schema.Rule) bool) bool {
	if fails == nil {
		return false
	}
	for _, f := range r.Findings {
		if fails(f.Rule) {
			return true
		}
	}
	for _, e := range r.Elided {
		if fails(e.Rule) {
			return true
		}
	}
	return false
}

// Report is the JSON document of a validation of several files.
type Report struct {
	Failed bool       `json:"failed"`
	Files  []FileJSON `json:"files"`
}

// FileJSON is one file of a Report.
type FileJSON struct {
	File          string        `json:"file"`
	CodexVersion  string        `json:"codexVersion,omitempty"`
	SchemaVersion string        `json:"schemaVersion,omitempty"`
	Frames        int           `json:"frames"`
	Findings      []FindingJSON `json:"findings"`
	// Elided counts the findings past those listed, per rule and method.
	Elided []ElidedJSON `json:"elided,omitempty"`
}

// ElidedJSON counts the findings of one rule and method a FileJSON does not list
// (method "*": of the methods past those named one by one).
type ElidedJSON struct {
	Rule     string `json:"rule"`
	Method   string `json:"method,omitempty"`
	Severity string `json:"severity"`
	Count    int    `json:"count"`
}

func toElidedJSON(e Elided) ElidedJSON {
	return ElidedJSON{Rule: string(e.Rule), Method: sanitize.MaskText(e.Method), Severity: string(e.Rule.Severity()), Count: e.Count}
}

// Add appends a file's result, masked.
func (r *Report) Add(res *Result) {
	if r.Files == nil {
		r.Files = []FileJSON{}
	}
	fj := FileJSON{File: res.File, CodexVersion: sanitize.MaskText(res.CodexVersion),
		SchemaVersion: sanitize.MaskText(res.SchemaVersion), Frames: res.Frames, Findings: []FindingJSON{}}
	for _, f := range res.Findings {
		fj.Findings = append(fj.Findings, toFindingJSON(res.File, res.SchemaVersion, f))
	}
	for _, e := range res.Elided {
		fj.Elided = append(fj.Elided, toElidedJSON(e))
	}
	r.Files = append(r.Files, fj)
}

// WriteJSON writes the report as one indented JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	if r.Files == nil {
		r.Files = []FileJSON{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// FindingJSON is one finding of a Report and one line of WriteJSONL.
type FindingJSON struct {
	File          string `json:"file"`
	SchemaVersion string `json:"schemaVersion,omitempty"`
	Seq           int64  `json:"seq"`
	Dir           string `json:"dir"`
	Method        string `json:"method,omitempty"`
	Rule          string `json:"rule"`
	Severity      string `json:"severity"`
	Pointer       string `json:"pointer"`
	Reason        string `json:"reason"`
}

func toFindingJSON(file, version string, f schema.Finding) FindingJSON {
	f = Printable(f)
	return FindingJSON{File: file, SchemaVersion: sanitize.MaskText(version), Seq: f.Seq, Dir: f.Dir.String(), Method: f.Method,
		Rule: string(f.Rule), Severity: string(f.Rule.Severity()), Pointer: f.Pointer, Reason: f.Reason}
}

// PointerText is a JSON pointer as printed: "/" for the whole message.
func PointerText(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// CountFindings is "3 findings (2 invalid, 1 undeclared-field)", or "no findings".
func CountFindings(fs []schema.Finding) string { return countFindings(fs, nil) }

// countFindings is CountFindings of the findings listed and those counted.
func countFindings(fs []schema.Finding, elided []Elided) string {
	n := map[schema.Rule]int{}
	total := 0
	for _, f := range fs {
		n[f.Rule]++
		total++
	}
	for _, e := range elided {
		n[e.Rule] += e.Count
		total += e.Count
	}
	if total == 0 {
		return "no findings"
	}
	var parts []string
	for _, r := range []schema.Rule{schema.RuleInvalid, schema.RuleUnknownMethod, schema.RuleUnpairedResponse, schema.RuleDuplicateID, schema.RuleExperimental, schema.RuleUndeclaredField} {
		if n[r] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[r], r))
		}
	}
	word := "findings"
	if total == 1 {
		word = "finding"
	}
	return fmt.Sprintf("%d %s (%s)", total, word, strings.Join(parts, ", "))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
