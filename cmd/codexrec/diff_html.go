package main

import (
	"io"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/view"
)

// writeDiffHTML writes diff --html's page: the recordings read again whole (the page
// shows their exact frames) beside diff's sessions and report.
func writeDiffHTML(c *diffConfig, args []string, old, nw *diff.Session, r *diff.Report, std stdio) error {
	if c.out == "" {
		return usagef("--html needs -o FILE")
	}
	oldRec, err := recorder.ReadFile(args[0])
	if err != nil {
		return err
	}
	newRec, err := recorder.ReadFile(args[1])
	if err != nil {
		return err
	}
	return writeOutput(c.out, c.force, std, func(w io.Writer) error {
		return view.Page{Reveal: std.reveal}.WriteDiffHTML(w, oldRec, newRec, old, nw, r)
	})
}
