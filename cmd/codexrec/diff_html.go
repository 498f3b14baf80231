package main

import (
	"io"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/view"
)

// writeDiffHTML writes diff --html's page: the recordings read again whole (the page
// shows their exact frames) beside diff's sessions and report.
func writeDiffHTML(c *diffConfig, args []string, old, nw *diff.Session, r *diff.Report, page view.Page) error {
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
	return writeHTMLFile(c.out, c.force, func(f io.Writer) error {
		return page.WriteDiffHTML(f, oldRec, newRec, old, nw, r)
	})
}
