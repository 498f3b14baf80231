package record

import (
	"bytes"

	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/wire"
)

// lookahead holds frames, in order, while the first of them, a delta, waits for the
// frame that follows it in its direction: a secret cut between two deltas is then
// found in both. Session.record holds frames so for the sanitizer (their writing
// waits), Session.watch for the guard's detectors (their checking waits). At most
// maxPending frames wait; a line longer than maxHeld never does.
type lookahead []pendingFrame

// maxPending bounds the frames waiting for a delta's successor.
const maxPending = 16

// maxHeld is the longest line copied to wait for its successor: a longer one is
// sanitized without it, so the session never holds a second copy of a huge line.
const maxHeld = 1 << 20

type pendingFrame struct {
	f        *wire.Frame
	v        verdict
	next     []byte // the line that follows f in its direction, once known
	resolved bool   // next is known, or f needs none
	borrowed bool   // f.Line is the caller's memory (watch, until keep)
}

// saw gives f, as their successor, to the waiting frames of its direction. Of it,
// only what the sanitizer reads is kept.
func (q lookahead) saw(f *wire.Frame) {
	for i := range q {
		if p := &q[i]; !p.resolved && p.f.Dir == f.Dir {
			p.next, p.resolved = sanitize.Lookahead(f.Line), true
		}
	}
}

// hold queues f when it must wait (a delta, or a frame behind waiting ones) and
// reports whether it did; f's line is kept as it is, marked borrowed when the
// caller still owns it (keep copies it later). A line longer than maxHeld is never
// held: the caller first lets out everything (out(true)), then handles it.
func (q *lookahead) hold(f *wire.Frame, v verdict, borrowed bool) bool {
	delta := f.Dir != wire.Stderr && f.Msg.Kind.IsJSON() && bytes.Contains(f.Line, []byte(`"delta`))
	if len(f.Line) > maxHeld || !delta && len(*q) == 0 {
		return false
	}
	*q = append(*q, pendingFrame{f: f, v: v, resolved: !delta, borrowed: borrowed})
	return true
}

// out takes the first frame when it may go: its successor is known (or it needs
// none), more than maxPending wait, or all.
func (q *lookahead) out(all bool) (pendingFrame, bool) {
	if len(*q) == 0 || !all && !(*q)[0].resolved && len(*q) <= maxPending {
		return pendingFrame{}, false
	}
	p := (*q)[0]
	*q = (*q)[1:]
	return p, true
}

// keep copies the borrowed lines of the frames still waiting.
func (q lookahead) keep() {
	for i := range q {
		if p := &q[i]; p.borrowed {
			p.f.Line, p.borrowed = bytes.Clone(p.f.Line), false
		}
	}
}
