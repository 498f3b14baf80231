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
	failOn    string
	version   string
	schemaDir string
}

func validateFlags(fs *flag.FlagSet) any {
	c := &validateConfig{}
	fs.BoolVar(&c.json, "json", false, "print findings as JSON Lines on stdout, one object per finding")
	fs.StringVar(&c.failOn, "fail-on", "invalid", "exit 1 on findings of this `level`: invalid (errors: invalid, unknown-method, unpaired-response), undeclared (also undeclared-field and experimental) or none")
	schemaFlags(fs, &c.version, &c.schemaDir)
	return c
}

// schemaFlags are shared by validate and record.
func schemaFlags(fs *flag.FlagSet, version, dir *string) {
	fs.StringVar(version, "codex-version", "", "validate against this Codex `VERSION` (default: from the initialize response's userAgent; the nearest older embedded version when it is not embedded)")
	fs.StringVar(dir, "schema-dir", "", "use the schemas in `DIR` (from codex app-server generate-json-schema --out DIR) instead of the embedded ones")
}

// failLevel says which findings make the exit code 1.
type failLevel int

const (
	failNone failLevel = iota
	failInvalid
	failUndeclared
)

func parseFailOn(s string) (failLevel, error) {
	switch s {
	case "none":
		return failNone, nil
	case "invalid":
		return failInvalid, nil
	case "undeclared":
		return failUndeclared, nil
	}
	return 0, fmt.Errorf("--fail-on %q: want invalid, undeclared or none", s)
}

func (l failLevel) fails(r schema.Rule) bool {
	switch l {
	case failInvalid:
		return r.Severity() == schema.SeverityError
	case failUndeclared:
		return true
	}
	return false
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
	var inputErr error
	failed := false
	for _, path := range args {
		sv := &sessionValidator{version: c.version, dir: c.schemaDir}
		if err := sv.setup(); err != nil {
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
		for _, n := range sv.notes {
			fmt.Fprintf(std.err, "codexrec validate: %s: %s\n", path, sanitize.MaskText(n))
		}
		for _, f := range res.findings {
			if level.fails(f.Rule) {
				failed = true
			}
		}
		if c.json {
			writeFindingsJSON(std.out, path, sv.schemaVersion, res.findings)
		} else {
			for _, f := range res.findings {
				f = printable(f)
				fmt.Fprintf(std.out, "%s:%d: %s %s %s %s: %s\n", path, f.Seq, f.Dir, orDash(f.Method), f.Rule, pointerText(f.Pointer), f.Reason)
			}
			fmt.Fprintf(std.out, "%s: codex %s, schema %s: %d frames, %s\n", path, orDash(sanitize.MaskText(res.codexVersion)),
				orDash(sanitize.MaskText(sv.schemaVersion)), res.frames, countFindings(res.findings))
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

type validateResult struct {
	frames       int
	codexVersion string
	findings     []schema.Finding
	warning      string // the recording's structural problems, one line
}

// validateFile streams a recording through sv. Findings a recording already holds
// are ignored: they are recomputed.
func validateFile(path string, sv *sessionValidator) (*validateResult, error) {
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
			sv.restart()
		case recorder.TypeFrame:
			res.frames++
			fr := wire.Frame{Seq: e.Seq, Time: e.Time, Dir: e.Dir, Line: e.Line, Msg: e.Msg}
			res.findings = append(res.findings, sv.frame(&fr)...)
		}
	}
	res.warning = rd.Warning()
	res.codexVersion = rd.Header().CodexVersion
	if sv.codex == "" {
		sv.codex = res.codexVersion
	}
	res.findings = append(res.findings, sv.finish()...)
	if res.codexVersion == "" {
		res.codexVersion = sv.codex
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
	for _, r := range []schema.Rule{schema.RuleInvalid, schema.RuleUnknownMethod, schema.RuleUnpairedResponse, schema.RuleExperimental, schema.RuleUndeclaredField} {
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

// findingJSON is one line of validate --json.
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

func writeFindingsJSON(w io.Writer, file, version string, fs []schema.Finding) {
	enc := json.NewEncoder(w)
	for _, f := range fs {
		f = printable(f)
		enc.Encode(findingJSON{File: file, SchemaVersion: sanitize.MaskText(version), Seq: f.Seq, Dir: f.Dir.String(), Method: f.Method,
			Rule: string(f.Rule), Severity: string(f.Rule.Severity()), Pointer: f.Pointer, Reason: f.Reason})
	}
}
