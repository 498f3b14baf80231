package main

import (
	"flag"
	"io"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/view"
)

func init() {
	register(&command{name: "view", args: "FILE -o report.html", flags: viewFlags, run: runView, interspersed: true,
		summary: "write a recording as one self-contained HTML page (two-lane timeline, no network)"})
}

type viewConfig struct {
	out   string
	force bool
}

func viewFlags(fs *flag.FlagSet) any {
	c := &viewConfig{}
	fs.StringVar(&c.out, "o", "", "write the page to `FILE` (required; - for stdout)")
	fs.BoolVar(&c.force, "force", false, "overwrite FILE if it exists")
	return c
}

func runView(cfg any, args []string, std stdio) error {
	c := cfg.(*viewConfig)
	if len(args) != 1 {
		return usagef("want exactly one recording")
	}
	if c.out == "" {
		return usagef("-o FILE is required")
	}
	// The page is written from the file read twice, never held whole.
	return writeOutput(c.out, c.force, std, func(w io.Writer) error {
		problems, err := view.Page{Reveal: std.reveal}.WriteHTMLFile(w, args[0])
		warnProblems(std.err, "view", recordingProblems{&recorder.Recording{Name: args[0], Problems: problems}})
		return err
	})
}
