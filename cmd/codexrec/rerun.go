package main

import (
	"flag"
	"fmt"
	"github.com/codexrec/codexrec/sanitize"

	"github.com/codexrec/codexrec/fixtures"
)

func init() {
	register(&command{
		name:    "rerun",
		args:    "[--codex PATH | --codex-version V] -o OUT [capture flags] RECORDING",
		summary: "re-capture a recorded session on another codex, hermetically: its client replayed, its model side rebuilt (see scenario from-recording)",
		flags:   rerunFlags,
		run:     runRerun,
	})
}

// rerun is capture with the scenario derived from a recording: the same fake model,
// temporary CODEX_HOME and workspace, and record's chain of stages.
func rerunFlags(fs *flag.FlagSet) any { return captureFlags(fs) }

func runRerun(cfg any, args []string, std stdio) error {
	c := cfg.(*captureConfig)
	if len(args) != 1 {
		return usagef("want one recording")
	}
	if c.scenario != "" || c.list {
		return usagef("rerun derives its scenario from the recording; --scenario and --list are capture's")
	}
	d, err := deriveScenario(args[0])
	if err != nil {
		return err
	}
	for _, s := range d.Skipped {
		fmt.Fprintf(std.err, "codexrec rerun: not reconstructed: %s\n", sanitize.MaskText(s))
	}
	c.derived = d.Scenario
	var res fixtures.Result
	c.result = &res
	err = runCapture(c, nil, std)
	for _, n := range res.Notes {
		fmt.Fprintf(std.err, "codexrec rerun: %s\n", sanitize.MaskText(n))
	}
	return err
}
