// Package export writes recordings in formats other tools read: HAR 1.2 (each
// connection an entry, its messages as Chrome DevTools' _webSocketMessages), OTLP/JSON
// traces (a span per request/response pair and per turn) and JSON Lines of messages.
// Secret-shaped text is masked unless Options.Reveal; it reads recordings through
// recorder and writes to an io.Writer or a new file (WriteFile); it does not
// send anywhere but an OTLP endpoint it is given (PushOTLP).
package export

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/codexrec/codexrec/internal/mask"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/view"
	"github.com/codexrec/codexrec/wire"
)

// Format is an export format.
type Format string

const (
	HAR   Format = "har"   // HTTP Archive 1.2
	OTLP  Format = "otlp"  // OpenTelemetry traces, OTLP/JSON
	JSONL Format = "jsonl" // one JSON object per message
)

// Formats lists the formats Write accepts.
var Formats = []Format{HAR, OTLP, JSONL}

// Options configure an export. The zero value masks secrets.
type Options struct {
	// Reveal writes recorded content as it is, without masking secret-shaped text.
	Reveal bool
	// Creator is the version of codexrec named in the output ("" for none).
	Creator string
}

// ParseFormat checks a format name.
func ParseFormat(s string) (Format, error) {
	if f := Format(s); slices.Contains(Formats, f) {
		return f, nil
	}
	return "", fmt.Errorf("unknown export format %q (want har, otlp or jsonl)", s)
}

// Write writes recs in format f to w.
func Write(w io.Writer, f Format, recs []*recorder.Recording, opts Options) error {
	var err error
	switch f {
	case HAR:
		err = WriteHAR(w, recs, opts)
	case OTLP:
		err = WriteOTLP(w, recs, opts)
	case JSONL:
		err = WriteJSONL(w, recs, opts)
	default:
		_, err = ParseFormat(string(f))
	}
	return err
}

// message is one frame as every format sees it: the timeline's row (thread, turn,
// pair), its notes and its masked content.
type message struct {
	row     *view.Row
	content []byte // masked exact content, without the newline
	json    bool   // content is a JSON value to embed as it is
	notes   []view.Note
}

// session is one recording prepared for export.
type session struct {
	rec     *recorder.Recording
	mask    *mask.Masker // this recording's, used in file order
	name    string
	started time.Time // zero when the header has none
	command []string
	msgs    []*message
	end     time.Duration // the last entry's time, or the trailer's duration
}

func prepare(rec *recorder.Recording, opts Options) (*session, error) {
	m, err := mask.New(opts.Reveal)
	if err != nil {
		return nil, err
	}
	s := &session{rec: rec, mask: m, name: m.Text(rec.Name), command: m.Strings(rec.Header.Command)}
	if t, err := time.Parse(time.RFC3339Nano, rec.Header.Started); err == nil {
		s.started = t
	}
	var b view.Builder
	bySeq := map[int64]*message{}
	for i := range rec.Entries {
		e := &rec.Entries[i]
		s.end = max(s.end, e.Time)
		switch e.Type {
		case recorder.TypeFrame:
			c := m.Frame(e)
			// The timeline is built from the masked frame, so no summary holds a
			// piece of a secret.
			masked := *e
			masked.Line = append(c[:len(c):len(c)], '\n')
			msg := &message{row: b.Frame(&masked), content: c}
			msg.json = e.Dir != wire.Stderr && e.Msg.Kind.IsJSON() && json.Valid(c)
			s.msgs = append(s.msgs, msg)
			bySeq[e.Seq] = msg
		case recorder.TypeFinding, recorder.TypeRedaction:
			if msg := bySeq[e.Seq]; msg != nil {
				n := view.NoteOf(e)
				n.Reason, n.Detail = m.Text(n.Reason), m.Text(n.Detail)
				msg.notes = append(msg.notes, n)
			}
		case recorder.TypeSegment:
			b.Segment(e.Segment)
		}
	}
	if tr := rec.Trailer; tr != nil {
		s.end = max(s.end, time.Duration(tr.Duration*float64(time.Second)))
	}
	return s, nil
}

// at is the wall-clock time of a session offset (the Unix epoch plus d when the
// recording has no start time).
func (s *session) at(d time.Duration) time.Time {
	if s.started.IsZero() {
		return time.Unix(0, 0).UTC().Add(d)
	}
	return s.started.Add(d)
}

// writeJSON writes v as one JSON document, indented when indent (HAR, for people);
// OTLP is one line, so a collector's file receiver, which reads a payload a line,
// takes it as it is.
func writeJSON(w io.Writer, v any, indent bool) error {
	enc := json.NewEncoder(w)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

func itoa(n int) string { return fmt.Sprint(n) }
