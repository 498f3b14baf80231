package main

import (
	"fmt"
	"io"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
)

// warnProblems prints a one-line warning about a recording's structural problems
// (a torn last line, seq out of order, ...) once it has been read; check reports
// them as findings instead.
func warnProblems(stderr io.Writer, cmd string, rd interface{ Warning() string }) {
	if w := rd.Warning(); w != "" {
		fmt.Fprintf(stderr, "codexrec %s: %s\n", cmd, sanitize.MaskText(w))
	}
}

// recordingProblems adapts a whole recording to warnProblems.
type recordingProblems struct{ *recorder.Recording }

func (r recordingProblems) Warning() string { return recorder.Warning(r.Name, r.Problems) }
