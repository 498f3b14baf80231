package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/codexrec/codexrec/check"
	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/setting"
)

func init() {
	register(&cli.Command{Config: true, Name: "check", Args: "[flags] FILE|DIR|-...", Flags: checkFlags, Run: runCheck, Interspersed: true,
		Summary: "run protocol-health rules over recordings (requests, turns, items, threads, noise, exits, schema): a CI gate"})
}

type checkConfig struct {
	opts             check.Options
	listRules, stale bool
	failOn           *failLevel
	staleness        staleFlags
}

func checkFlags(fs *flag.FlagSet) any {
	c := &checkConfig{}
	o := &c.opts
	fs.BoolVar(&o.JSON, "json", false, "print the report as JSON on stdout")
	fs.StringVar(&o.JUnit, "junit", "", "also write a JUnit XML report (one test case per rule) to `FILE`")
	c.failOn = failOnFlag(fs, cli.Error, "exit 1 when a finding has this `level` or worse: "+failOnHelp)
	fs.Var((*cli.Strings)(&o.Disable), "disable", "do not report `RULE` (repeatable, or comma-separated); \"schema\" turns schema validation off")
	fs.Var((*cli.Strings)(&o.Severity), "severity", "report `RULE=LEVEL` at LEVEL (info, warning, error) instead of its default (repeatable, or comma-separated)")
	fs.BoolVar(&c.listRules, "list-rules", false, "list the rules with their default severity and exit")
	fs.StringVar(&o.Version, "codex-version", "", "validate against this Codex `version`'s schema instead of the recording's own")
	fs.StringVar(&o.SchemaDir, "schema-dir", "", "validate against the schema set in `DIR` (codex app-server generate-json-schema --out DIR)")
	fs.StringVar(&o.SARIF, "sarif", "", "also write a SARIF 2.1.0 report (one result per finding) to `FILE`")
	fs.Var((*cli.Strings)(&o.Assert.ExpectMethods), "expect-method", "assert that `METHOD` appears in each recording (repeatable; rule expect-method; docs/check.md)")
	fs.Var((*cli.Strings)(&o.Assert.ForbidMethods), "forbid-method", "assert that `METHOD` never appears (repeatable; rule forbid-method)")
	fs.DurationVar(&o.Assert.MaxTurnDuration, "max-turn-duration", 0, "assert that no turn takes longer than `D` from turn/started to turn/completed (rule max-turn-duration)")
	fs.BoolVar(&o.Assert.ExpectApproval, "expect-approval", false, "assert that the server asks for at least one approval (rule expect-approval)")
	fs.BoolVar(&c.stale, "stale", false, "list the stale recordings (--max-age, --min-codex) instead of running the rules (docs/staleness.md)")
	c.staleness.register(fs, false)
	settings.Apply("check", fs)
	return c
}

func runCheck(cfg any, args []string, std cli.IO) error {
	c := cfg.(*checkConfig)
	switch {
	case c.listRules:
		return check.WriteRules(std.Out)
	case c.stale:
		return runStaleCheck(&c.staleness, args, std)
	}
	o := c.opts
	o.FailOn = c.failOn.checkSeverity()
	o.Paths, o.Stdin, o.Out, o.Log = args, std.In, std.Out, std.Log
	out, err := check.Run(context.Background(), o)
	var rf *check.ReportFileError
	switch {
	case errors.As(err, new(*setting.Error)):
		return settingUsage(err, func(se *setting.Error) string {
			return fmt.Sprintf("%s %s: %v (see codexrec check --list-rules)", settingFlags[se.Setting], se.Value, se.Err)
		})
	case errors.Is(err, check.ErrNoPaths):
		return cli.Usagef("no recording to check")
	case errors.As(err, &rf):
		err = fmt.Errorf("--%s: %w", strings.ToLower(rf.Report), rf.Err)
	}
	return verdict(err, out.Unread != nil, c.failOn.Level != cli.Never && out.Failed)
}
