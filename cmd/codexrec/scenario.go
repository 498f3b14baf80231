package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"

	"github.com/codexrec/codexrec/fixtures/derive"
	"github.com/codexrec/codexrec/sanitize"
)

func init() {
	register(&command{name: "scenario", args: "SUBCOMMAND [flags] [args] (subcommands: from-recording)",
		summary: "work with capture scenarios: scenario from-recording FILE derives one that replays a recording"})
}

var scenarioCommands = map[string]*command{
	"from-recording": {name: "scenario from-recording", args: "[-o FILE] [--force] RECORDING", flags: fromRecordingFlags, run: runFromRecording, interspersed: true,
		summary: "derive a capture scenario that replays RECORDING (its client messages, answers and model side); capture --scenario runs it"},
}

type fromRecordingConfig struct {
	out   string
	force bool
}

func fromRecordingFlags(fs *flag.FlagSet) any {
	c := &fromRecordingConfig{}
	fs.StringVar(&c.out, "o", "", "write the scenario to `FILE` (default, or -: stdout)")
	fs.BoolVar(&c.force, "force", false, "overwrite FILE if it exists")
	return c
}

func runFromRecording(cfg any, args []string, std stdio) error {
	c := cfg.(*fromRecordingConfig)
	if len(args) != 1 {
		return usagef("want one recording")
	}
	res, err := derive.FromFile(args[0])
	if err != nil {
		return err
	}
	b, err := res.Scenario.Encode()
	if err != nil {
		return err
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(std.err, "codexrec scenario: not reconstructed: %s\n", sanitize.MaskText(s))
	}
	return writeOutput(cmp.Or(c.out, "-"), c.force, std, func(w io.Writer) error { _, err := w.Write(b); return err })
}
