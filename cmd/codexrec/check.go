package main

import (
	"errors"
	"flag"
	"fmt"
	"github.com/codexrec/codexrec/sanitize"
	"io"
	"os"
	"strings"
	"time"

	"github.com/codexrec/codexrec/check"
	"github.com/codexrec/codexrec/recorder"
)

func init() {
	register(&command{
		name:         "check",
		args:         "[flags] FILE|DIR|-...",
		summary:      "run protocol-health rules over recordings (requests, turns, items, threads, noise, exits, schema): a CI gate",
		flags:        checkFlags,
		run:          runCheck,
		interspersed: true,
	})
}

type checkConfig struct {
	json      bool
	junit     string
	failOn    string
	disable   multiFlag
	severity  multiFlag
	listRules bool
	version   string
	schemaDir string
	stale     bool
	staleness staleFlags
	sarif     string
	expect    multiFlag
	forbid    multiFlag
	maxTurn   time.Duration
	approval  bool
}

func checkFlags(fs *flag.FlagSet) any {
	c := &checkConfig{}
	fs.BoolVar(&c.json, "json", false, "print the report as JSON on stdout")
	fs.StringVar(&c.junit, "junit", "", "also write a JUnit XML report (one test case per rule) to `FILE`")
	fs.StringVar(&c.failOn, "fail-on", "error", "exit 1 when a finding has this `level` or worse: "+failOnHelp)
	fs.Var(&c.disable, "disable", "do not report `RULE` (repeatable, or comma-separated); \"schema\" turns schema validation off")
	fs.Var(&c.severity, "severity", "report `RULE=LEVEL` at LEVEL (info, warning, error) instead of its default (repeatable, or comma-separated)")
	fs.BoolVar(&c.listRules, "list-rules", false, "list the rules with their default severity and exit")
	fs.StringVar(&c.version, "codex-version", "", "validate against this Codex `version`'s schema instead of the recording's own")
	fs.StringVar(&c.schemaDir, "schema-dir", "", "validate against the schema set in `DIR` (codex app-server generate-json-schema --out DIR)")
	fs.StringVar(&c.sarif, "sarif", "", "also write a SARIF 2.1.0 report (one result per finding) to `FILE`")
	fs.Var(&c.expect, "expect-method", "assert that `METHOD` appears in each recording (repeatable; rule expect-method; docs/check.md)")
	fs.Var(&c.forbid, "forbid-method", "assert that `METHOD` never appears (repeatable; rule forbid-method)")
	fs.DurationVar(&c.maxTurn, "max-turn-duration", 0, "assert that no turn takes longer than `D` from turn/started to turn/completed (rule max-turn-duration)")
	fs.BoolVar(&c.approval, "expect-approval", false, "assert that the server asks for at least one approval (rule expect-approval)")
	fs.BoolVar(&c.stale, "stale", false, "list the stale recordings (--max-age, --min-codex) instead of running the rules (docs/staleness.md)")
	c.staleness.register(fs, false)
	applyConfig("check", fs)
	return c
}

func runCheck(cfg any, args []string, std stdio) error {
	c := cfg.(*checkConfig)
	if c.listRules {
		for _, r := range check.Rules() {
			fmt.Fprintf(std.out, "%-26s %-7s %s\n", r.ID, r.Severity, r.Summary)
		}
		return nil
	}
	if c.stale {
		return runStaleCheck(&c.staleness, args, std)
	}
	level, err := parseFailOn(c.failOn)
	if err != nil {
		return usagef("%v", err)
	}
	failOn, gate := level.checkSeverity()
	disabled, severity, err := check.ParseSettings(c.disable, c.severity)
	var se *check.SettingError
	if errors.As(err, &se) {
		return usagef("--%s %s: %v (see codexrec check --list-rules)", strings.ToLower(se.Setting), se.Value, se.Err)
	}
	if len(args) == 0 {
		return usagef("no recording to check")
	}
	ck := &check.Checker{Disable: disabled, Severity: severity, Assert: check.Assertions{
		ExpectMethods: c.expect, ForbidMethods: c.forbid, MaxTurnDuration: c.maxTurn, ExpectApproval: c.approval}}
	if !disabled[check.RuleSchema] {
		ck.Schema = check.SchemaValidator(c.version, c.schemaDir)
		if c.version != "" || c.schemaDir != "" {
			// A schema named on the command line must load: fail now, not per file.
			if _, err := ck.Schema(recorder.Header{}); err != nil {
				return &exitError{exitUsage, fmt.Errorf("schema: %w", err)}
			}
		}
	}
	results, inputErr := ck.CheckPaths(args, std.in, func(err error) {
		fmt.Fprintf(std.err, "codexrec check: %s\n", sanitize.MaskText(err.Error()))
	})
	if c.json {
		err = check.WriteJSON(std.out, results, failOn)
	} else {
		err = check.WriteText(std.out, results, failOn)
	}
	if err != nil {
		return &exitError{exitUsage, err}
	}
	if c.junit != "" {
		if err := writeJUnit(c.junit, results, failOn, disabled); err != nil {
			return &exitError{exitUsage, err}
		}
	}
	if c.sarif != "" {
		if err := writeReportFile(c.sarif, "--sarif", func(w io.Writer) error { return check.WriteSARIF(w, results, disabled) }); err != nil {
			return &exitError{exitUsage, err}
		}
	}
	switch {
	case inputErr != nil:
		return &exitError{code: exitUsage}
	case gate && check.Failed(results, failOn):
		return &exitError{code: exitFindings}
	}
	return nil
}

func writeJUnit(path string, results []*check.Result, failOn check.Severity, disabled map[string]bool) error {
	// 0600: findings quote recorded content. Replaced as it always was, through a
	// temporary file, never through a link.
	err := recorder.WriteFile(path, true, 0o600, func(w io.Writer) error { return check.WriteJUnit(w, results, failOn, disabled) })
	if err != nil {
		return fmt.Errorf("--junit: %w", err)
	}
	return nil
}

// writeReportFile writes a report file through write; flag names it in errors.
func writeReportFile(path, flag string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	return nil
}
