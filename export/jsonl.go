package export

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/view"
	"github.com/codexrec/codexrec/wire"
)

// Line is one object of the JSON Lines export: a message of a recording, flat, for jq.
type Line struct {
	Recording string          `json:"recording"`
	Seq       int64           `json:"seq"`
	Time      string          `json:"time,omitempty"` // RFC 3339, when the recording has a start time
	T         float64         `json:"t"`              // seconds since the session started
	Dir       string          `json:"dir"`            // c2s, s2c, stderr
	Kind      string          `json:"kind,omitempty"`
	Method    string          `json:"method,omitempty"`
	ID        json.RawMessage `json:"id,omitempty"`
	Thread    string          `json:"thread,omitempty"`
	Turn      string          `json:"turn,omitempty"`
	Item      string          `json:"item,omitempty"`
	Pair      int64           `json:"pair,omitempty"`    // the seq of the joined request or response
	Latency   float64         `json:"latency,omitempty"` // seconds, on a joined pair
	Summary   string          `json:"summary,omitempty"`
	Msg       json.RawMessage `json:"msg,omitempty"`  // the message, when it is JSON
	Text      string          `json:"text,omitempty"` // the line, when it is not
	Notes     []view.Note     `json:"notes,omitempty"`
}

// WriteJSONL writes every frame of recs as one Line each, recording after recording.
func WriteJSONL(w io.Writer, recs []*recorder.Recording, opts Options) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for _, rec := range recs {
		s, err := prepare(rec, opts)
		if err != nil {
			return err
		}
		for _, m := range s.msgs {
			if err := enc.Encode(s.line(m)); err != nil {
				return fmt.Errorf("export: %s: %w", s.name, err)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

func (s *session) line(m *message) Line {
	r := m.row
	l := Line{Recording: s.name, Seq: r.Seq, T: r.Time.Seconds(), Dir: r.Dir.String(),
		Method: r.Method, Thread: r.Thread, Turn: r.Turn, Item: r.Item, Pair: r.Pair,
		Latency: r.Latency.Seconds(), Summary: r.Summary, Notes: m.notes}
	if !s.started.IsZero() {
		l.Time = s.at(r.Time).Format(timeFormat)
	}
	if r.Dir != wire.Stderr {
		l.Kind = r.Kind.String()
	}
	if r.ID != "" && json.Valid([]byte(r.ID)) {
		l.ID = json.RawMessage(r.ID)
	}
	if m.json {
		l.Msg = json.RawMessage(m.content)
	} else {
		l.Text = string(m.content)
	}
	return l
}

const timeFormat = "2006-01-02T15:04:05.000000Z07:00"
