package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/wire"
)

func init() {
	register(&command{
		name:         "validate",
		args:         "[flags] FILE...",
		summary:      "check every message of recordings against the exact Codex version's protocol schema",
		flags:        validateFlags,
		run:          runValidate,
		interspersed: true,
	})
}

type validateConfig struct {
	json      bool
	jsonl     bool
	failOn    string
	version   string
	schemaDir string
}

func validateFlags(fs *flag.FlagSet) any {
	c := &validateConfig{}
	fs.BoolVar(&c.json, "json", false, "print the report as one JSON document on stdout: every file with its versions, frame count and findings")
	fs.BoolVar(&c.jsonl, "jsonl", false, "print findings as JSON Lines on stdout, one object per finding (what --json printed before)")
	fs.StringVar(&c.failOn, "fail-on", "error", "exit 1 on findings of this `level` or worse: "+failOnHelp+" (error: invalid, unknown-method, unpaired-response; warning adds undeclared-field and experimental)")
	schemaFlags(fs, &c.version, &c.schemaDir)
	return c
}

// schemaFlags are shared by validate and record.
func schemaFlags(fs *flag.FlagSet, version, dir *string) {
	fs.StringVar(version, "codex-version", "", "validate against this Codex `VERSION` (default: from the initialize response's userAgent; the nearest older embedded version when it is not embedded)")
	fs.StringVar(dir, "schema-dir", "", "use the schemas in `DIR` (from codex app-server generate-json-schema --out DIR) instead of the embedded ones")
}

func runValidate(cfg any, args []string, std stdio) error {
	c := cfg.(*validateConfig)
	level, err := parseFailOn(c.failOn)
	if err != nil {
		return usagef("%v", err)
	}
	if len(args) == 0 {
		return usagef("no recording to validate")
	}
	if c.json && c.jsonl {
		return usagef("--json and --jsonl exclude each other")
	}
	var inputErr error
	failed := false
	report := validateReport{Files: []validateFileJSON{}}
	for _, path := range args {
		sv := &schema.SessionValidator{Version: c.version, Dir: c.schemaDir}
		if err := sv.Start(); err != nil {
			return &exitError{exitUsage, err}
		}
		res, err := validateFile(path, sv)
		if err == nil && res.warning != "" {
			fmt.Fprintf(std.err, "codexrec validate: %s\n", res.warning)
		}
		if err != nil {
			fmt.Fprintf(std.err, "codexrec validate: %s\n", sanitize.MaskText(err.Error()))
			inputErr = errors.Join(inputErr, err)
			continue
		}
		for _, n := range sv.Notes() {
			fmt.Fprintf(std.err, "codexrec validate: %s: %s\n", path, sanitize.MaskText(n))
		}
		for _, f := range res.findings {
			if level.fails(f.Rule) {
				failed = true
			}
		}
		switch {
		case c.json:
			report.add(path, res)
		case c.jsonl:
			if err := writeFindingsJSON(std.out, path, res.schemaVersion, res.findings); err != nil {
				return err
			}
		default:
			for _, f := range res.findings {
				f = printable(f)
				fmt.Fprintf(std.out, "%s:%d: %s %s %s %s: %s\n", path, f.Seq, f.Dir, orDash(f.Method), f.Rule, pointerText(f.Pointer), f.Reason)
			}
			fmt.Fprintf(std.out, "%s: codex %s, schema %s: %d frames, %s\n", path, orDash(sanitize.MaskText(res.codexVersion)),
				orDash(sanitize.MaskText(res.schemaVersion)), res.frames, countFindings(res.findings))
		}
	}
	if c.json {
		report.Failed = failed
		enc := json.NewEncoder(std.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(report); err != nil {
			return err
		}
	}
	if inputErr != nil {
		return &exitError{code: exitUsage}
	}
	if failed {
		return &exitError{code: exitFindings}
	}
	return nil
}

// validateReport is validate --json: one document.
type validateReport struct {
	Failed bool               `json:"failed"`
	Files  []validateFileJSON `json:"files"`
}

type validateFileJSON struct {
	File          string        `json:"file"`
	CodexVersion  string        `json:"codexVersion,omitempty"`
	SchemaVersion string        `json:"schemaVersion,omitempty"`
	Frames        int           `json:"frames"`
	Findings      []findingJSON `json:"findings"`
}

func (r *validateReport) add(file string, res *validateResult) {
	fj := validateFileJSON{File: file, CodexVersion: sanitize.MaskText(res.codexVersion),
		SchemaVersion: sanitize.MaskText(res.schemaVersion), Frames: res.frames, Findings: []findingJSON{}}
	for _, f := range res.findings {
		fj.Findings = append(fj.Findings, toFindingJSON(file, res.schemaVersion, f))
	}
	r.Files = append(r.Files, fj)
}

type validateResult struct {
	frames        int
	codexVersion  string
	schemaVersion string
	findings      []schema.Finding
	warning       string // the recording's structural problems, one line
}

// validateFile streams a recording through sv. Findings a recording already holds
// are ignored: they are recomputed.
func validateFile(path string, sv *schema.SessionValidator) (*validateResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	defer f.Close()
	rd, err := recorder.NewReader(f, path)
	if err != nil {
		return nil, err
	}
	res := &validateResult{}
	for e, err := range rd.Entries() {
		if err != nil {
			return nil, err
		}
		switch e.Type {
		case recorder.TypeSegment:
			sv.Restart()
		case recorder.TypeFrame:
			res.frames++
			fr := wire.Frame{Seq: e.Seq, Time: e.Time, Dir: e.Dir, Line: e.Line, Msg: e.Msg}
			res.findings = append(res.findings, sv.Frame(&fr)...)
		}
	}
	res.warning = rd.Warning()
	res.codexVersion = rd.Header().CodexVersion
	sv.Header = res.codexVersion
	res.findings = append(res.findings, sv.Finish()...)
	if c, ok := sv.Chosen(); ok {
		res.schemaVersion = c.Schema
		if res.codexVersion == "" && c.From != schema.FromExplicit {
			res.codexVersion = c.Codex
		}
	}
	sort.SliceStable(res.findings, func(i, j int) bool { return res.findings[i].Seq < res.findings[j].Seq })
	return res, nil
}

func pointerText(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

func countFindings(fs []schema.Finding) string {
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

// findingJSON is one finding of validate --json and one line of --jsonl.
type findingJSON struct {
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

func writeFindingsJSON(w io.Writer, file, version string, fs []schema.Finding) error {
	enc := json.NewEncoder(w)
	for _, f := range fs {
		if err := enc.Encode(toFindingJSON(file, version, f)); err != nil {
			return err
		}
	}
	return nil
}

func toFindingJSON(file, version string, f schema.Finding) findingJSON {
	f = printable(f)
	return findingJSON{File: file, SchemaVersion: sanitize.MaskText(version), Seq: f.Seq, Dir: f.Dir.String(), Method: f.Method,
		Rule: string(f.Rule), Severity: string(f.Rule.Severity()), Pointer: f.Pointer, Reason: f.Reason}
}
