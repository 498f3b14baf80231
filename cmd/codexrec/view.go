package main

import (
	"flag"
	"io"

	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/view"
)

func init() {
	register(&cli.Command{Name: "view", Args: "FILE -o report.html", Flags: viewFlags, Run: runView, Interspersed: true, Operands: cli.One("recording"),
		Summary: "write a recording as one self-contained HTML page (two-lane timeline, no network)"})
}

func viewFlags(fs *flag.FlagSet) any {
	o := &cli.Output{}
	o.Flags(fs, "write the page to `FILE` (required; - for stdout)", "overwrite FILE if it exists")
	return o
}

func runView(cfg any, args []string, std cli.IO) error {
	o := cfg.(*cli.Output)
	if o.Path == "" {
		return cli.Usagef("-o FILE is required")
	}
	// The page is written from the file read twice, never held whole.
	return o.Write(std.Out, func(w io.Writer) error {
		problems, err := view.Page{Reveal: std.Reveal}.WriteHTMLFile(w, args[0])
		warnProblems(std.Err, "view", args[0], problems)
		return err
	})
}
