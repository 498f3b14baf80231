package main

import (
	"flag"
	"io"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/view"
)

func init() {
	register(&command{name: "diff", args: "[--json] [--ignore POINTER]... [--ignore-moves] [--html -o FILE] OLD NEW", flags: diffFlags, run: runDiff, interspersed: true,
		summary: "compare two recordings after normalising run-varying values (exit 1 when they differ)"})
}

type diffConfig struct {
	opts                     diff.RunOptions
	ignoreMoves, html, force bool
	color, out, failOn       string
}

func diffFlags(fs *flag.FlagSet) any {
	c := &diffConfig{}
	fs.BoolVar(&c.opts.JSON, "json", false, "write the report as JSON")
	fs.StringVar(&c.color, "color", "auto", "colour the text report: auto (on a terminal, unless NO_COLOR), always, never")
	fs.BoolVar(&c.ignoreMoves, "ignore-moves", false, "exit 0 when the only differences are messages at another place in the sequence (asynchronous notifications)")
	fs.Var((*multiFlag)(&c.opts.Ignore), "ignore", "also leave out values at JSON `POINTER` (repeatable; * is one segment, ** any: /params/item/durationMs, /**/model)")
	fs.BoolVar(&c.html, "html", false, "also write the two sessions aligned, changes marked, as a self-contained HTML page to -o FILE")
	fs.StringVar(&c.out, "o", "", "write the HTML page to `FILE` (implies --html; - writes it on stdout instead of the report)")
	fs.BoolVar(&c.force, "force", false, "overwrite -o FILE if it exists")
	fs.StringVar(&c.failOn, "fail-on", "info", "exit 1 when the sessions differ at this `level`: "+failOnHelp+" (info: any difference; warning and error: differences other than moved messages)")
	return c
}

func runDiff(cfg any, args []string, std stdio) error {
	c := cfg.(*diffConfig)
	if len(args) != 2 {
		return usagef("want two recordings, OLD and NEW")
	}
	o := c.opts
	colour, err := wantColour(c.color, std)
	if err != nil {
		return err
	}
	level, err := parseFailOn(c.failOn)
	if err != nil {
		return usagef("%v", err)
	}
	o.Colour, o.Log = colour, prefixed(std.err, "codexrec diff: ")
	if c.out != "-" {
		o.Out = std.out
	}
	if c.html || c.out != "" {
		o.Page = func(old, nw *diff.Session, r *diff.Report) error {
			if c.out == "" {
				return usagef("--html needs -o FILE")
			}
			return writeOutput(c.out, c.force, std, func(w io.Writer) error { return view.Page{Reveal: std.reveal}.WriteDiffHTMLFiles(w, old, nw, r) })
		}
	}
	r, err := diff.Run(args[0], args[1], o)
	return verdict(err, false, err == nil && level != failNever && r.Differs(c.ignoreMoves || level > failInfo))
}
