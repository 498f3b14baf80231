package view

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
)

// TimelineJSON collects the frames a Text with the same filters shows, with their
// notes, and writes them as one JSON document (codexrec show --json). Text from the
// wire is masked, as Text masks it.
type TimelineJSON struct {
	Methods []string // keep only frames whose method matches one of these globs
	Thread  string   // keep only frames of threads whose id starts with this

	b   Builder
	doc timelineDoc
	row *FrameJSON // the last kept frame: its notes follow it
}

type timelineDoc struct {
	File         string            `json:"file"`
	CodexVersion string            `json:"codexVersion,omitempty"`
	Scenario     string            `json:"scenario,omitempty"`
	Frames       []*FrameJSON      `json:"frames"`
	Trailer      *recorder.Trailer `json:"trailer"`
}

// FrameJSON is one frame of the timeline document.
type FrameJSON struct {
	Seq       int64   `json:"seq"`
	Time      float64 `json:"t"`
	Dir       string  `json:"dir"`
	Kind      string  `json:"kind"`
	Method    string  `json:"method,omitempty"`
	ID        string  `json:"id,omitempty"`
	Segment   int     `json:"segment"`
	Thread    string  `json:"thread,omitempty"`
	Turn      string  `json:"turn,omitempty"`
	Item      string  `json:"item,omitempty"`
	Summary   string  `json:"summary,omitempty"`
	Pair      int64   `json:"pair,omitempty"`
	LatencyMs float64 `json:"latencyMs,omitempty"`
	Notes     []Note  `json:"notes,omitempty"`
}

// Header records the recording's name and header.
func (j *TimelineJSON) Header(name string, h recorder.Header) error {
	j.doc.File, j.doc.CodexVersion, j.doc.Scenario = name, h.CodexVersion, h.Scenario
	j.doc.Frames = []*FrameJSON{}
	return nil
}

// Entry adds what e contributes: a kept frame, or a note under the frame kept last.
func (j *TimelineJSON) Entry(e *recorder.Entry) error {
	switch e.Type {
	case recorder.TypeFrame:
		r := j.b.Frame(e)
		j.row = nil
		if !keepRow(r, j.Thread, j.Methods) {
			return nil
		}
		j.row = &FrameJSON{Seq: r.Seq, Time: r.Time.Seconds(), Dir: r.Dir.String(), Kind: r.Kind.String(),
			Method: sanitize.MaskText(r.Method), ID: sanitize.MaskText(string(r.ID)), Segment: r.Segment,
			Thread: r.Thread, Turn: r.Turn, Item: r.Item, Summary: sanitize.MaskText(r.Summary),
			Pair: r.Pair, LatencyMs: float64(r.Latency.Microseconds()) / 1000}
		j.doc.Frames = append(j.doc.Frames, j.row)
	case recorder.TypeFinding, recorder.TypeRedaction:
		if j.row != nil {
			j.row.Notes = append(j.row.Notes, Note{Type: e.Type, Rule: e.Rule, Severity: e.Severity,
				Pointer: sanitize.MaskText(e.Pointer), Reason: sanitize.MaskText(e.Reason), Detail: sanitize.MaskText(e.Detail)})
		}
	case recorder.TypeSegment:
		j.b.Segment(e.Segment)
	case recorder.TypeMeta:
		if e.Header != nil && e.Header.CodexVersion != "" {
			j.doc.CodexVersion = e.Header.CodexVersion
		}
	}
	return nil
}

// Trailer records the trailer (nil when the recording was cut short).
func (j *TimelineJSON) Trailer(tr *recorder.Trailer) error {
	j.doc.Trailer = tr
	return nil
}

// WriteJSON writes the document.
func (j *TimelineJSON) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(j.doc)
}

// keepRow is Text's filter: thread id prefix and method globs.
func keepRow(r *Row, thread string, methods []string) bool {
	if thread != "" && !strings.HasPrefix(r.Thread, thread) {
		return false
	}
	if len(methods) == 0 {
		return true
	}
	for _, g := range methods {
		if MatchMethod(g, r.Method) {
			return true
		}
	}
	return false
}
