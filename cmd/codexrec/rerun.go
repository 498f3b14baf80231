package main

import (
	"context"
	"flag"
	"fmt"
	"os/signal"
	"syscall"

	"github.com/codexrec/codexrec/fixtures"
	"github.com/codexrec/codexrec/sanitize"
)

func init() {
	register(&command{
		name:         "rerun",
		args:         "[--codex PATH | --codex-version V] -o OUT [capture flags] RECORDING",
		summary:      "re-capture a recorded session on another codex, hermetically: its client replayed, its model side rebuilt (see scenario from-recording)",
		flags:        rerunFlags,
		run:          runRerun,
		interspersed: true,
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
	o, err := c.options(std)
	if err != nil {
		return err
	}
	o.MCPCommand = mcpCommand()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	res, err := fixtures.Rerun(ctx, args[0], o)
	if res != nil {
		for _, s := range res.Skipped {
			fmt.Fprintf(std.err, "codexrec rerun: not reconstructed: %s\n", sanitize.MaskText(s))
		}
		for _, n := range res.Notes {
			fmt.Fprintf(std.err, "codexrec rerun: %s\n", sanitize.MaskText(n))
		}
	}
	return c.done("rerun", o, res, err, std)
}
