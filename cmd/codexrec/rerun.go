package main

import (
	"flag"
	"fmt"

	"github.com/codexrec/codexrec/fixtures"
	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/sanitize"
)

func init() {
	register(&cli.Command{Name: "rerun", Args: "[--codex PATH | --codex-version V] -o OUT [capture flags] RECORDING", Flags: rerunFlags, Run: runRerun, Interspersed: true, Operands: cli.One("recording"),
		Summary: "re-capture a recorded session on another codex, hermetically: its client replayed, its model side rebuilt (see scenario from-recording)"})
}

// rerun is capture with the scenario derived from a recording: the same fake model,
// temporary CODEX_HOME and workspace, and record's chain of stages.
func rerunFlags(fs *flag.FlagSet) any { return captureFlags(fs) }

func runRerun(cfg any, args []string, std cli.IO) error {
	c := cfg.(*captureConfig)
	if c.scenario != "" || c.list || c.json {
		return cli.Usagef("rerun derives its scenario from the recording; --scenario, --list and --json are capture's")
	} else if err := c.options("rerun", std); err != nil {
		return err
	}
	c.MCPCommand = mcpCommand()
	ctx, stop := cli.Interruptible()
	defer stop()
	res, err := fixtures.Rerun(ctx, args[0], c.CaptureOptions)
	for _, s := range res.Remarks() {
		fmt.Fprintf(std.Log, "%s\n", sanitize.MaskText(s))
	}
	return c.done("rerun", res, err, std)
}
