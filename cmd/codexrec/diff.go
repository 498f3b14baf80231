package main

import (
	"flag"
	"io"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/view"
)

func init() {
	register(&cli.Command{Name: "diff", Args: "[--json] [--ignore POINTER]... [--ignore-moves] [--html -o FILE] OLD NEW", Flags: diffFlags, Run: runDiff, Interspersed: true, Operands: cli.Two("recordings, OLD and NEW"),
		Summary: "compare two recordings after normalising run-varying values (exit 1 when they differ)"})
}

type diffConfig struct {
	opts              diff.RunOptions
	ignoreMoves, html bool
	failOn            *failLevel
	colour            cli.Colour
	out               cli.Output
}

func diffFlags(fs *flag.FlagSet) any {
	c := &diffConfig{}
	fs.BoolVar(&c.opts.JSON, "json", false, "write the report as JSON")
	c.colour.Flag(fs, "colour the text report: auto (on a terminal, unless NO_COLOR), always, never")
	fs.BoolVar(&c.ignoreMoves, "ignore-moves", false, "exit 0 when the only differences are messages at another place in the sequence (asynchronous notifications)")
	fs.Var((*cli.Strings)(&c.opts.Ignore), "ignore", "also leave out values at JSON `POINTER` (repeatable; * is one segment, ** any: /params/item/durationMs, /**/model)")
	fs.BoolVar(&c.html, "html", false, "also write the two sessions aligned, changes marked, as a self-contained HTML page to -o FILE")
	c.out.Flags(fs, "write the HTML page to `FILE` (implies --html; - writes it on stdout instead of the report)", "overwrite -o FILE if it exists")
	c.failOn = failOnFlag(fs, cli.Info, "exit 1 when the sessions differ at this `level`: "+failOnHelp+" (info: any difference; warning and error: differences other than moved messages)")
	return c
}

func runDiff(cfg any, args []string, std cli.IO) error {
	c := cfg.(*diffConfig)
	o := c.opts
	colour, err := c.colour.On(std.Out)
	if err != nil {
		return err
	}
	o.Colour, o.Log = colour, std.Log
	if c.out.Path != "-" {
		o.Out = std.Out
	}
	if c.html || c.out.Path != "" {
		o.Page = func(old, nw *diff.Session, r *diff.Report) error {
			if c.out.Path == "" {
				return cli.Usagef("--html needs -o FILE")
			}
			return c.out.Write(std.Out, func(w io.Writer) error { return view.Page{Reveal: std.Reveal}.WriteDiffHTMLFiles(w, old, nw, r) })
		}
	}
	r, err := diff.Run(args[0], args[1], o)
	return verdict(err, false, err == nil && c.failOn.Level != cli.Never && r.Differs(c.ignoreMoves || c.failOn.Level > cli.Info))
}
