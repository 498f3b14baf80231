package main

import (
	"fmt"
	"github.com/codexrec/codexrec/sanitize"
	"io"
	"sync"

	"github.com/codexrec/codexrec/recorder"
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

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// prefixed is w with prefix written at the start of every line: what a library
// logs, said as the command.
func prefixed(w io.Writer, prefix string) io.Writer {
	return &prefixWriter{w: w, prefix: []byte(prefix), start: true}
}

type prefixWriter struct {
	mu     sync.Mutex
	w      io.Writer
	prefix []byte
	start  bool
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []byte
	for _, c := range b {
		if p.start {
			out = append(out, p.prefix...)
		}
		out = append(out, c)
		p.start = c == '\n'
	}
	if _, err := p.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}
