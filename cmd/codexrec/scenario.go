package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"

	"github.com/codexrec/codexrec/fixtures/derive"
	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/sanitize"
)

func init() {
	register(&cli.Command{Name: "scenario", Subcommands: scenarioCommands, Args: "SUBCOMMAND [flags] [args] (subcommands: from-recording)",
		Summary: "work with capture scenarios: scenario from-recording FILE derives one that replays a recording"})
}

var scenarioCommands = map[string]*cli.Command{
	"from-recording": {Name: "scenario from-recording", Args: "[-o FILE] [--force] RECORDING", Flags: fromRecordingFlags, Run: runFromRecording, Interspersed: true, Operands: cli.One("recording"),
		Summary: "derive a capture scenario that replays RECORDING (its client messages, answers and model side); capture --scenario runs it"},
}

func fromRecordingFlags(fs *flag.FlagSet) any {
	o := &cli.Output{}
	o.Flags(fs, "write the scenario to `FILE` (default, or -: stdout)", "overwrite FILE if it exists")
	return o
}

func runFromRecording(cfg any, args []string, std cli.IO) error {
	o := *cfg.(*cli.Output)
	res, err := derive.FromFile(args[0])
	if err != nil {
		return err
	}
	b, err := res.Scenario.Encode()
	if err != nil {
		return err
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(std.Log, "not reconstructed: %s\n", sanitize.MaskText(s))
	}
	o.Path = cmp.Or(o.Path, "-")
	return o.Write(std.Out, func(w io.Writer) error { _, err := w.Write(b); return err })
}
