package check

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// TextLimit is how many findings of one rule the text report lists per recording;
// the JSON report lists all a Result keeps (see ExampleLimit).
const TextLimit = 20

// Failed reports whether any result has a finding at or above failOn.
func Failed(results []*Result, failOn Severity) bool {
	for _, r := range results {
		if r.Count(failOn) > 0 {
			return true
		}
	}
	return false
}

// group returns the findings by rule id, in the order of Rules (schema findings
// gathered under their own ids after the rules), and the ids in that order.
func group(fs []Finding) ([]string, map[string][]Finding) {
	by := map[string][]Finding{}
	for _, f := range fs {
		by[f.Rule] = append(by[f.Rule], f)
	}
	var ids []string
	for _, r := range rules {
		if len(by[r.ID]) > 0 {
			ids = append(ids, r.ID)
		}
	}
	var rest []string
	for id := range by {
		if _, ok := LookupRule(id); !ok || strings.HasPrefix(id, RuleSchema+"/") {
			rest = append(rest, id)
		}
	}
	slices.Sort(rest)
	return append(ids, rest...), by
}

func counts(r *Result) (errs, warns, infos int) {
	add := func(sev Severity, n int) {
		switch sev {
		case Error:
			errs += n
		case Warning:
			warns += n
		default:
			infos += n
		}
	}
	for _, f := range r.Findings {
		add(f.Severity, 1)
	}
	for _, e := range r.Elided {
		add(e.Severity, e.Count)
	}
	return
}

func plural(n int, one string) string {
	if n == 1 || one == "info" {
		return strconv.Itoa(n) + " " + one
	}
	return strconv.Itoa(n) + " " + one + "s"
}

// WriteText writes the human-readable report: per recording, findings grouped by rule.
func WriteText(w io.Writer, results []*Result, failOn Severity) error {
	var b strings.Builder
	for _, r := range results {
		errs, warns, infos := counts(r)
		version := r.CodexVersion
		if version == "" {
			version = "unknown"
		}
		fmt.Fprintf(&b, "%s (codex %s, %d frames, %s, %s): %s, %s, %s\n", r.File, version, r.Frames,
			plural(r.Segments, "server lifetime"), plural(r.Turns, "turn")+turnStatus(r.TurnStatus),
			plural(errs, "error"), plural(warns, "warning"), plural(infos, "info"))
		ids, by := group(r.Findings)
		for _, id := range ids {
			fs := by[id]
			summary := ""
			if rule, ok := LookupRule(id); ok && !strings.HasPrefix(id, RuleSchema+"/") {
				summary = ": " + rule.Summary
			}
			elided := r.elided(id)
			fmt.Fprintf(&b, "  %-7s %s (%d)%s\n", fs[0].Severity, id, len(fs)+elided, summary)
			for i, f := range fs {
				if i == TextLimit {
					if elided > 0 {
						fmt.Fprintf(&b, "          ... and %d more (the JSON report lists the first %d of each method and counts the rest)\n", len(fs)+elided-TextLimit, ExampleLimit)
						break
					}
					fmt.Fprintf(&b, "          ... and %d more (the JSON report lists all)\n", len(fs)-TextLimit)
					break
				}
				fmt.Fprintf(&b, "          %s\n", findingLine(f))
			}
		}
	}
	if len(results) > 1 {
		n := 0
		for _, r := range results {
			n += r.Count(failOn)
		}
		fmt.Fprintf(&b, "%d recordings, %s at or above %s\n", len(results), plural(n, "finding"), failOn)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// turnStatus is " (2 completed, 1 interrupted)", or "" when no turn completed.
func turnStatus(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		if k == "" {
			parts[i] = fmt.Sprintf("%d without status", m[k])
		} else {
			parts[i] = fmt.Sprintf("%d %s", m[k], k)
		}
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// findingLine is one finding on one line: where, then what.
func findingLine(f Finding) string {
	var b strings.Builder
	for i, s := range f.Seqs {
		if i == 0 {
			b.WriteString("frame ")
		} else {
			b.WriteString(",")
		}
		b.WriteString(strconv.FormatInt(s, 10))
	}
	switch {
	case len(f.Seqs) > 0 && f.Segment > 0:
		fmt.Fprintf(&b, " lifetime %d", f.Segment)
	case f.Segment > 0:
		fmt.Fprintf(&b, "lifetime %d", f.Segment)
	case len(f.Seqs) == 0:
		b.WriteString("recording")
	}
	if f.Thread != "" {
		b.WriteString(" thread " + f.Thread)
	}
	if f.Turn != "" {
		b.WriteString(" turn " + f.Turn)
	}
	if f.Item != "" {
		b.WriteString(" item " + f.Item)
	}
	if strings.HasPrefix(f.Rule, RuleSchema+"/") && f.Method != "" {
		b.WriteString(" " + f.Dir + " " + f.Method)
	}
	if f.Pointer != "" {
		b.WriteString(" at " + f.Pointer)
	}
	b.WriteString(": ")
	b.WriteString(f.Message)
	return b.String()
}

// Report is the JSON report's top level.
type Report struct {
	FailOn     Severity  `json:"failOn"`
	Failed     bool      `json:"failed"`
	Recordings []*Result `json:"recordings"`
}

// WriteJSON writes the machine-readable report: every finding of every recording.
func WriteJSON(w io.Writer, results []*Result, failOn Severity) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(Report{FailOn: failOn, Failed: Failed(results, failOn), Recordings: results})
}
