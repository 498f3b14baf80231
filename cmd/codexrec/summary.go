package main

import (
	"flag"

	"github.com/codexrec/codexrec/view"
)

func init() {
	register(&command{
		name:    "summary",
		args:    "[--json] FILE",
		summary: "print a recording's header, frame counts, methods and the agent's replies",
		flags: func(fs *flag.FlagSet) any {
			return fs.Bool("json", false, "print the summary as one JSON document on stdout")
		},
		run:          runSummary,
		interspersed: true,
	})
}

func runSummary(cfg any, args []string, std stdio) error {
	if len(args) != 1 {
		return usagef("want exactly one recording")
	}
	o, rd, err := view.ReadOverview(args[0])
	if rd != nil {
		warnProblems(std.err, "summary", rd)
	}
	if err != nil {
		return usageOrIO(err)
	}
	if *cfg.(*bool) {
		return o.WriteJSON(std.out)
	}
	return o.WriteText(std.out)
}
