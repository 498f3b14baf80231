package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/view"
)

func init() {
	register(&cli.Command{Name: "show", Args: "FILE [--method GLOB] [--thread ID] [--raw] [--deltas] [--follow]", Flags: showFlags, Run: runShow, Interspersed: true, Operands: cli.One("recording"),
		Summary: "print a recording as a timeline, one line per frame, grouped by thread and turn"})
}

func showFlags(fs *flag.FlagSet) any {
	o := &view.ShowOptions{}
	fs.Var((*cli.Strings)(&o.Methods), "method", "show only frames whose method matches `GLOB` ('*' spans '/'; repeatable)")
	fs.StringVar(&o.Thread, "thread", "", "show only frames of the thread whose id starts with `ID`")
	fs.BoolVar(&o.Raw, "raw", false, "print each frame's exact JSON instead of its summary")
	fs.BoolVar(&o.Deltas, "deltas", false, "one line per agent text delta instead of one per run")
	fs.BoolVar(&o.Follow, "follow", false, "keep reading a recording that codexrec record is still writing, until its trailer")
	fs.BoolVar(&o.JSON, "json", false, "print the (filtered) frames with their notes as one JSON document on stdout")
	fs.DurationVar(&o.Poll, "poll", 100*time.Millisecond, "with --follow, how often to look for new entries")
	return o
}

func runShow(cfg any, args []string, std cli.IO) error {
	o := *cfg.(*view.ShowOptions)
	if o.JSON && (o.Follow || o.Raw || o.Deltas) {
		return cli.Usagef("--json is the whole recording's frames: not with --follow, --raw or --deltas")
	}
	o.Out, o.Color, o.Log = std.Out, cli.AutoColour(std.Out), std.Log
	o.Gone = func(tmp string) {
		fmt.Fprintf(std.Log, "the codexrec writing %s is gone (killed?); complete it with: codexrec recover %s\n", tmp, tmp)
	}
	return view.Show(context.Background(), args[0], o)
}
