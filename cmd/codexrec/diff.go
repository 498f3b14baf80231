package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/view"
)

func init() {
	register(&command{
		name:         "diff",
		args:         "[--json] [--ignore POINTER]... [--ignore-moves] [--html -o FILE] OLD NEW",
		summary:      "compare two recordings after normalising run-varying values (exit 1 when they differ)",
		flags:        diffFlags,
		run:          runDiff,
		interspersed: true,
	})
}

type diffConfig struct {
	json   bool
	color  string
	ignore multiFlag
	// ignoreMoves: message-moved changes alone do not make the sessions differ.
	ignoreMoves bool
	html        bool   // also write the aligned sessions as a page (view.WriteDiffHTML)
	out         string // the page's file
	force       bool
}

func diffFlags(fs *flag.FlagSet) any {
	c := &diffConfig{}
	fs.BoolVar(&c.json, "json", false, "write the report as JSON")
	fs.StringVar(&c.color, "color", "auto", "colour the text report: auto (on a terminal, unless NO_COLOR), always, never")
	fs.BoolVar(&c.ignoreMoves, "ignore-moves", false, "exit 0 when the only differences are messages at another place in the sequence (asynchronous notifications)")
	fs.Var(&c.ignore, "ignore", "also leave out values at JSON `POINTER` (repeatable; * is one segment, ** any: /params/item/durationMs, /**/model)")
	fs.BoolVar(&c.html, "html", false, "also write the two sessions aligned, changes marked, as a self-contained HTML page to -o FILE")
	fs.StringVar(&c.out, "o", "", "with --html, the page's `FILE`")
	fs.BoolVar(&c.force, "force", false, "with --html, overwrite FILE if it exists")
	return c
}

func runDiff(cfg any, args []string, std stdio) error {
	c := cfg.(*diffConfig)
	if len(args) != 2 {
		return usagef("want two recordings, OLD and NEW")
	}
	colour, err := wantColour(c.color, std)
	if err != nil {
		return err
	}
	opts := diff.Options{Ignore: c.ignore}
	old, nw, err := diff.LoadFiles(args[0], args[1], opts)
	if err != nil {
		return usageOrIO(err)
	}
	for _, s := range []*diff.Session{old, nw} {
		if w := recorder.Warning(s.Name, s.Problems); w != "" {
			fmt.Fprintf(std.err, "codexrec diff: %s\n", w)
		}
	}
	r := diff.Compare(old, nw)
	if c.html {
		if err := writeDiffHTML(c, args, old, nw, r, view.Page{Reveal: std.reveal}); err != nil {
			return usageOrIO(err)
		}
	}
	if err := writeReport(std.out, r, c.json, colour); err != nil {
		return err
	}
	if !r.Same && !(c.ignoreMoves && r.OnlyMoves()) {
		return &exitError{code: exitFindings}
	}
	return nil
}

// wantColour decides whether the text report is coloured.
func wantColour(mode string, std stdio) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
		return isTerminal(std.out) && os.Getenv("NO_COLOR") == "", nil
	}
	return false, usagef("--color %q: want auto, always or never", mode)
}

// report is what diff and schema diff write: diff.Report and diff.SchemaReport.
type report interface {
	WriteJSON(w io.Writer) error
	WriteText(w io.Writer, colour bool) error
}

// writeReport writes r as JSON or as (maybe coloured) text.
func writeReport(w io.Writer, r report, asJSON, colour bool) error {
	if asJSON {
		return r.WriteJSON(w)
	}
	return r.WriteText(w, colour)
}

// usageOrIO keeps errors from reading inputs at exit code 2 with their context.
func usageOrIO(err error) error { return &exitError{code: exitUsage, err: err} }
