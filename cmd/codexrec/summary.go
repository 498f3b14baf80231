package main

import (
	"flag"

	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/view"
)

func init() {
	register(&cli.Command{Name: "summary", Args: "[--json] FILE", Run: runSummary, Interspersed: true, Operands: cli.One("recording"),
		Summary: "print a recording's header, frame counts, methods and the agent's replies",
		Flags: func(fs *flag.FlagSet) any {
			return fs.Bool("json", false, "print the summary as one JSON document on stdout")
		}})
}

func runSummary(cfg any, args []string, std cli.IO) error {
	return view.WriteSummary(std.Out, args[0], view.SummaryOptions{JSON: *cfg.(*bool), Log: std.Log})
}
