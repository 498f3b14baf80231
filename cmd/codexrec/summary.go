package main

import (
	"flag"

	"github.com/codexrec/codexrec/view"
)

func init() {
	register(&command{name: "summary", args: "[--json] FILE", run: runSummary, interspersed: true,
		summary: "print a recording's header, frame counts, methods and the agent's replies",
		flags: func(fs *flag.FlagSet) any {
			return fs.Bool("json", false, "print the summary as one JSON document on stdout")
		}})
}

func runSummary(cfg any, args []string, std stdio) error {
	if len(args) != 1 {
		return usagef("want exactly one recording")
	}
	return view.WriteSummary(std.out, args[0], view.SummaryOptions{JSON: *cfg.(*bool), Log: prefixed(std.err, "codexrec summary: ")})
}
