package validate

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/schema"
)

// WriteText writes one line per finding and a closing line for the file, every
// text that came from the wire masked.
func (r *Result) WriteText(w io.Writer) error {
	for _, f := range r.Findings {
		f = Printable(f)
		if _, err := fmt.Fprintf(w, "%s:%d: %s %s %s %s: %s\n", r.File, f.Seq, f.Dir, orDash(f.Method), f.Rule, PointerText(f.Pointer), f.Reason); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "%s: codex %s, schema %s: %d frames, %s\n", r.File, orDash(sanitize.MaskText(r.CodexVersion)),
		orDash(sanitize.MaskText(r.SchemaVersion)), r.Frames, CountFindings(r.Findings))
	return err
}

// WriteJSONL writes one JSON object per finding.
func (r *Result) WriteJSONL(w io.Writer) error {
	enc := json.NewEncoder(w)
	for _, f := range r.Findings {
		if err := enc.Encode(toFindingJSON(r.File, r.SchemaVersion, f)); err != nil {
			return err
		}
	}
	return nil
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
func CountFindings(fs []schema.Finding) string {
	if len(fs) == 0 {
		return "no findings"
	}
	n := map[schema.Rule]int{}
	for _, f := range fs {
		n[f.Rule]++
	}
	var parts []string
	for _, r := range []schema.Rule{schema.RuleInvalid, schema.RuleUnknownMethod, schema.RuleUnpairedResponse, schema.RuleDuplicateID, schema.RuleExperimental, schema.RuleUndeclaredField} {
		if n[r] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[r], r))
		}
	}
	word := "findings"
	if len(fs) == 1 {
		word = "finding"
	}
	return fmt.Sprintf("%d %s (%s)", len(fs), word, strings.Join(parts, ", "))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
