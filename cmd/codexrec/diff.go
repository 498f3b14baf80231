package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/recorder"
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
	failOn      string
}

func diffFlags(fs *flag.FlagSet) any {
	c := &diffConfig{}
	fs.BoolVar(&c.json, "json", false, "write the report as JSON")
	fs.StringVar(&c.color, "color", "auto", "colour the text report: auto (on a terminal, unless NO_COLOR), always, never")
	fs.BoolVar(&c.ignoreMoves, "ignore-moves", false, "exit 0 when the only differences are messages at another place in the sequence (asynchronous notifications)")
	fs.Var(&c.ignore, "ignore", "also leave out values at JSON `POINTER` (repeatable; * is one segment, ** any: /params/item/durationMs, /**/model)")
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
	colour, err := wantColour(c.color, std)
	if err != nil {
		return err
	}
	level, err := parseFailOn(c.failOn)
	if err != nil {
		return usagef("%v", err)
	}
	c.html = c.html || c.out != ""
	opts := diff.Options{Ignore: c.ignore}
	var r *diff.Report
	if c.html {
		old, nw, err := diff.LoadFiles(args[0], args[1], opts)
		if err != nil {
			return usageOrIO(err)
		}
		warnDiffProblems(std, old.Name, old.Problems, nw.Name, nw.Problems)
		r = diff.Compare(old, nw)
		if err := writeDiffHTML(c, args, old, nw, r, std); err != nil {
			return usageOrIO(err)
		}
	} else {
		// The report alone: compared without holding the recordings.
		var op, np []recorder.Problem
		r, op, np, err = diff.CompareFiles(args[0], args[1], opts)
		if err != nil {
			return usageOrIO(err)
		}
		warnDiffProblems(std, args[0], op, args[1], np)
	}
	if c.out != "-" {
		if err := writeReport(std.out, r, c.json, colour); err != nil {
			return err
		}
	}
	onlyMoves := r.OnlyMoves()
	switch {
	case r.Same || level == failNever:
	case onlyMoves && (c.ignoreMoves || level > failInfo):
	default:
		return &exitError{code: exitFindings}
	}
	return nil
}

// warnDiffProblems warns of each recording's structural problems.
func warnDiffProblems(std stdio, oldName string, oldProblems []recorder.Problem, newName string, newProblems []recorder.Problem) {
	if w := recorder.Warning(oldName, oldProblems); w != "" {
		fmt.Fprintf(std.err, "codexrec diff: %s\n", w)
	}
	if w := recorder.Warning(newName, newProblems); w != "" {
		fmt.Fprintf(std.err, "codexrec diff: %s\n", w)
	}
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
