package view

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/wire"
)

// Text writes a recording as a terminal timeline, one line per frame, entry by entry,
// so it can follow a recording that is still being written. Consecutive agent text
// deltas of one item are merged into one line holding the joined text unless Deltas
// is set. The zero value writes nothing useful: set W.
type Text struct {
	W io.Writer

	Color   bool     // ANSI colours (only for a terminal)
	Raw     bool     // the exact JSON of each frame instead of its summary
	Deltas  bool     // one line per agent text delta instead of one per run
	Methods []string // show only frames whose method matches one of these globs
	Thread  string   // show only frames of threads whose id starts with this

	b       Builder
	bw      *bufio.Writer
	group   groupKey
	grouped bool
	shown   bool // the last frame was shown (its notes are shown too)
	run     *deltaRun
	version string // the codex version already printed
}

type groupKey struct {
	segment      int
	thread, turn string
}

// deltaRun is a run of agent text deltas of one item, waiting to be printed as one line.
type deltaRun struct {
	first, last *Row
	n           int
}

// Header writes the recording's header line.
func (t *Text) Header(name string, h recorder.Header) error {
	w := t.out()
	parts := []string{"recording " + name}
	if h.CodexVersion != "" {
		t.version = h.CodexVersion
		parts = append(parts, "codex "+h.CodexVersion)
	}
	if h.Scenario != "" {
		parts = append(parts, "scenario "+h.Scenario)
	}
	if h.Started != "" {
		parts = append(parts, "started "+h.Started)
	}
	fmt.Fprintln(w, t.paint(bold, strings.Join(parts, "  ")))
	return nil
}

// Entry writes whatever e contributes: a frame line, a note under its frame, a
// process boundary. Lines of a delta run are held back until the run ends or Flush.
func (t *Text) Entry(e *recorder.Entry) error {
	w := t.out()
	if e.Type != recorder.TypeFrame && t.run != nil && !(e.Type == recorder.TypeFinding || e.Type == recorder.TypeRedaction) {
		t.flushRun()
	}
	switch e.Type {
	case recorder.TypeFrame:
		r := t.b.Frame(e)
		t.shown = t.keep(r)
		if !t.shown {
			return nil
		}
		if r.Delta && !t.Raw && !t.Deltas {
			if t.run != nil && t.run.last.Item == r.Item && t.run.last.Dir == r.Dir {
				t.run.last = r
				t.run.n++
				return nil
			}
			t.flushRun()
			t.run = &deltaRun{first: r, last: r, n: 1}
			return nil
		}
		t.flushRun()
		t.frame(r)
	case recorder.TypeFinding, recorder.TypeRedaction:
		if !t.shown {
			return nil
		}
		t.flushRun()
		t.note(e)
	case recorder.TypeSegment:
		t.b.Segment(e.Segment)
		t.grouped = false
		fmt.Fprintln(w, t.paint(bold, fmt.Sprintf("── server process %d: %s", e.Segment, sanitize.MaskText(strings.Join(e.Command, " ")))))
	case recorder.TypeExit:
		fmt.Fprintln(w, t.paint(dim, fmtTime(e.Time)+" ── "+exitSummary(e)))
	case recorder.TypeMeta:
		// A meta entry carries the header merged so far: say the version once.
		if e.Header != nil && e.Header.CodexVersion != "" && e.Header.CodexVersion != t.version {
			t.version = e.Header.CodexVersion
			fmt.Fprintln(w, t.paint(dim, fmtTime(e.Time)+" codex version "+e.Header.CodexVersion))
		}
	}
	return nil
}

// Flush prints a held-back delta run (call it when the input pauses).
func (t *Text) Flush() error {
	t.flushRun()
	if t.bw != nil {
		return t.bw.Flush()
	}
	return nil
}

// Trailer writes how the session ended; tr is nil for a recording cut short.
func (t *Text) Trailer(tr *recorder.Trailer) error {
	t.flushRun()
	w := t.out()
	if tr == nil {
		fmt.Fprintln(w, t.paint(yellow, "── no trailer: the recording was cut short"))
		return t.Flush()
	}
	s := fmt.Sprintf("── ended %s, exit code %d, %.3fs, frames c2s %d s2c %d stderr %d",
		tr.Ended, tr.ExitCode, tr.Duration, tr.Frames["c2s"], tr.Frames["s2c"], tr.Frames["stderr"])
	if tr.Signal != "" {
		s += ", signal " + tr.Signal
	}
	if tr.Findings > 0 {
		s += fmt.Sprintf(", %d findings", tr.Findings)
	}
	if tr.Error != "" {
		s += ", error: " + tr.Error
	}
	fmt.Fprintln(w, t.paint(bold, s))
	return t.Flush()
}

func (t *Text) keep(r *Row) bool { return keepRow(r, t.Thread, t.Methods) }

func (t *Text) frame(r *Row) {
	t.groupLine(r)
	w := t.out()
	var s strings.Builder
	s.WriteString(t.paint(dim, fmtTime(r.Time)+" "+fmt.Sprintf("#%-5d", r.Seq)))
	s.WriteString(" ")
	s.WriteString(t.head(r, ""))
	if t.Raw {
		s.WriteString(" ")
		s.WriteString(sanitize.MaskText(string(wire.Content(r.Line))))
	} else if r.Summary != "" {
		s.WriteString(" ")
		s.WriteString(t.paint(summaryColor(r), sanitize.MaskText(r.Summary)))
	}
	fmt.Fprintln(w, strings.TrimRight(s.String(), " "))
}

func (t *Text) flushRun() {
	run := t.run
	if run == nil {
		return
	}
	t.run = nil
	if run.n == 1 {
		t.frame(run.first)
		return
	}
	r := run.last
	t.groupLine(r)
	var s strings.Builder
	seqs := fmt.Sprintf("#%d-%d", run.first.Seq, r.Seq)
	s.WriteString(t.paint(dim, fmtTime(run.first.Time)+" "+fmt.Sprintf("%-6s", seqs)))
	s.WriteString(" ")
	s.WriteString(t.head(r, fmt.Sprintf(" ×%d", run.n)))
	s.WriteString(" ")
	s.WriteString(t.paint(summaryColor(r), clip(quote(sanitize.MaskText(head(r.Text))))))
	fmt.Fprintln(t.out(), s.String())
}

// head is the arrow, kind, method and id of a frame, with its pairing.
func (t *Text) head(r *Row, extra string) string {
	arrow, c := "→", cyan
	switch r.Dir {
	case wire.ServerToClient:
		arrow, c = "←", green
	case wire.Stderr:
		return t.paint(dim, "! stderr      ") + strings.Repeat(" ", methodWidth+1)
	}
	kind := r.Kind.String()
	if r.Kind == wire.KindError {
		c = red
	}
	h := t.paint(c, arrow+" "+fmt.Sprintf("%-12s", kind)) + " "
	m := r.Method + extra
	if r.ID != "" {
		m += " [" + string(r.ID) + "]"
	}
	var pair string
	var pc string
	switch {
	case (r.Kind == wire.KindResponse || r.Kind == wire.KindError) && r.Pair != 0:
		pair, pc = fmt.Sprintf(" ↩#%d %s", r.Pair, fmtLatency(r.Latency)), dim
	case r.Unpaired:
		pair, pc = " (unpaired)", yellow
	}
	pad := methodWidth - utf8.RuneCountInString(m+pair)
	return h + m + t.paint(pc, pair) + strings.Repeat(" ", max(pad, 0))
}

// methodWidth aligns summaries after the method column of most frames.
const methodWidth = 44

func (t *Text) groupLine(r *Row) {
	if r.Thread == "" {
		return
	}
	k := groupKey{r.Segment, r.Thread, r.Turn}
	if t.grouped && k == t.group {
		return
	}
	t.group, t.grouped = k, true
	s := "── thread " + r.Thread
	if r.Turn != "" {
		s += " · turn " + r.Turn
	}
	fmt.Fprintln(t.out(), t.paint(bold, s))
}

func (t *Text) note(e *recorder.Entry) {
	var s string
	switch e.Type {
	case recorder.TypeFinding:
		s = fmt.Sprintf("%*s ⚑ #%d finding %s %s %s: %s", 15, "", e.Seq, e.Severity, e.Rule, pointer(e.Pointer), e.Reason)
		s = t.paint(yellow, s)
	default:
		s = fmt.Sprintf("%*s ✂ #%d redacted %s at %s", 15, "", e.Seq, e.Rule, pointer(e.Pointer))
		if e.Detail != "" {
			s += " → " + e.Detail
		}
		s = t.paint(magenta, s)
	}
	fmt.Fprintln(t.out(), clipLine(s))
}

// exitSummary says how a server process ended, for the timeline and the page.
func exitSummary(e *recorder.Entry) string {
	s := fmt.Sprintf("server process %d exited: code %d", max(e.Segment, 1), e.ExitCode)
	if e.Signal != "" {
		s += ", signal " + e.Signal
	}
	return s
}

func (t *Text) out() io.Writer {
	if t.bw == nil {
		t.bw = bufio.NewWriter(t.W)
	}
	return t.bw
}

func pointer(p string) string {
	if p == "" {
		return "(whole message)"
	}
	return p
}

func summaryColor(r *Row) string {
	switch {
	case r.Dir == wire.Stderr:
		return dim
	case r.Kind == wire.KindError, r.Method == "error":
		return red
	}
	return ""
}

func fmtTime(d time.Duration) string { return fmt.Sprintf("%8.3fs", d.Seconds()) }

func fmtLatency(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.3fs", d.Seconds())
}

// clipLine keeps a note on one line.
func clipLine(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "\r", " ")
}

const (
	bold    = "1"
	dim     = "2"
	red     = "31"
	green   = "32"
	yellow  = "33"
	magenta = "35"
	cyan    = "36"
)

func (t *Text) paint(code, s string) string {
	if !t.Color || code == "" || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}
