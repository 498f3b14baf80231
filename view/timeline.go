package view

import (
	"time"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// Row is one frame as people read it: where it belongs (thread, turn), what it says
// (Summary) and what it is joined to (Pair).
type Row struct {
	Seq     int64
	Time    time.Duration
	Dir     wire.Direction
	Kind    wire.Kind
	Method  string
	ID      wire.ID
	Segment int // server process lifetime, 1-based

	Thread string // thread id, "" for session-level frames
	Turn   string // turn id, "" outside a turn
	Item   string // item id for item notifications and deltas

	Summary string
	// Pair is the seq of the response that answered this request, or of the request
	// this response answers; 0 when there is none (yet). Latency is the time between.
	Pair     int64
	Latency  time.Duration
	Unpaired bool

	// Delta marks an agent message text delta; Text is then the message so far,
	// joined from all deltas of the item up to this one.
	Delta bool
	Text  string

	Notes []Note // findings and redactions about this frame
	Line  []byte // the exact frame bytes
}

// Note is a finding or redaction attached to a frame. The HTML page's data carries
// it as it is, hence the JSON names.
type Note struct {
	Type     recorder.EntryType `json:"type"` // TypeFinding or TypeRedaction
	Rule     string             `json:"rule,omitempty"`
	Severity string             `json:"severity,omitempty"`
	Pointer  string             `json:"pointer"`
	Reason   string             `json:"reason,omitempty"`
	Detail   string             `json:"detail,omitempty"`
}

// Builder turns a recording's entries into Rows one entry at a time, so it serves
// both a whole file and a recording that is still being written. The zero value is
// ready to use; it is not safe for concurrent use.
type Builder struct {
	pending map[pendingKey]*Row // requests awaiting an answer
	active  map[string]string   // thread id -> turn id of the running turn
	// item id -> agent text so far. Deltas are appended to one buffer per item and
	// each row's Text is a view of its prefix (bytes once appended never change), so
	// an item of n deltas costs linear time and at most twice its text in memory,
	// not a copy of the text so far per row.
	text    map[string]*itemText
	segment int
}

type pendingKey struct {
	dir wire.Direction // the request's direction
	id  wire.ID
}

// Frame builds the row for a frame entry. Rows for earlier requests are updated in
// place when their response arrives (Pair, Latency), so callers holding them see it.
func (b *Builder) Frame(e *recorder.Entry) *Row {
	if b.pending == nil {
		b.pending = map[pendingKey]*Row{}
		b.active = map[string]string{}
		b.text = map[string]*itemText{}
	}
	if b.segment == 0 {
		b.segment = 1
	}
	r := &Row{Seq: e.Seq, Time: e.Time, Dir: e.Dir, Kind: e.Msg.Kind, Method: e.Msg.Method,
		ID: e.Msg.ID, Segment: b.segment, Unpaired: e.Msg.Unpaired, Line: e.Line}
	r.Summary = Summarize(e)
	if e.Dir == wire.Stderr || !e.Msg.Kind.IsJSON() {
		return r
	}
	msg := gjson.Parse(bytesString(e.JSON()))
	p := msg.Get("params")
	r.Thread = firstStr(p, "threadId", "thread.id", "conversationId")
	r.Turn = firstStr(p, "turnId", "turn.id")
	r.Item = firstStr(p, "itemId", "item.id")
	switch e.Msg.Kind {
	case wire.KindRequest:
		b.pending[pendingKey{e.Dir, e.Msg.ID}] = r
	case wire.KindResponse, wire.KindError:
		res := msg.Get("result")
		r.Thread = firstStr(res, "thread.id")
		r.Turn = firstStr(res, "turn.id")
		if req, ok := b.pending[pendingKey{e.Dir.Opposite(), e.Msg.ID}]; ok {
			delete(b.pending, pendingKey{e.Dir.Opposite(), e.Msg.ID})
			r.Pair, req.Pair = req.Seq, r.Seq
			r.Latency = r.Time - req.Time
			req.Latency = r.Latency
			if r.Thread == "" {
				r.Thread = req.Thread
			}
			if r.Turn == "" {
				r.Turn = req.Turn
			}
		}
	}
	if r.Thread != "" && r.Turn == "" && e.Msg.Method != "turn/start" {
		r.Turn = b.active[r.Thread]
	}
	switch {
	case e.Msg.Method == "turn/started", e.Msg.Kind == wire.KindResponse && e.Msg.Method == "turn/start":
		if r.Thread != "" && r.Turn != "" {
			b.active[r.Thread] = r.Turn
		}
	case e.Msg.Method == "turn/completed":
		delete(b.active, r.Thread)
	case e.Msg.Method == "item/agentMessage/delta":
		r.Delta = true
		t := b.text[r.Item]
		if t == nil {
			t = &itemText{}
			b.text[r.Item] = t
		}
		r.Text = t.add(p.Get("delta").Str)
	case e.Msg.Method == "item/completed":
		delete(b.text, r.Item)
	}
	return r
}

// Segment notes that a new server process lifetime begins; the pairing of requests
// sent to the old process ends with it.
func (b *Builder) Segment(n int) {
	b.segment = n
	clear(b.pending)
	clear(b.active)
}

// NoteOf converts a finding or redaction entry.
func NoteOf(e *recorder.Entry) Note {
	return Note{Type: e.Type, Rule: e.Rule, Severity: e.Severity, Pointer: e.Pointer, Reason: e.Reason, Detail: e.Detail}
}

func firstStr(v gjson.Result, paths ...string) string {
	if !v.Exists() {
		return ""
	}
	for _, p := range paths {
		if s := v.Get(p); s.Type == gjson.String && s.Str != "" {
			return s.Str
		}
	}
	return ""
}

// itemText is an item's agent text so far: its first delta as it is (often where it
// lies in the frame), then one buffer that only grows.
type itemText struct {
	first string
	n     int
	buf   []byte
}

// add appends d and returns the text so far, a view that later deltas never change.
func (t *itemText) add(d string) string {
	t.n++
	if t.n == 1 {
		t.first = d
		return d
	}
	if t.buf == nil {
		t.buf = append(make([]byte, 0, 2*(len(t.first)+len(d))), t.first...)
		t.first = ""
	}
	t.buf = append(t.buf, d...)
	if len(t.buf) == 0 {
		return ""
	}
	return unsafe.String(&t.buf[0], len(t.buf))
}
