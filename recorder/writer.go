package recorder

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/codexrec/codexrec/internal/jsonx"
	"github.com/codexrec/codexrec/wire"
)

// Writer appends entries to a recording. It writes to a 0600 temporary file beside
// the target and renames it into place on Close, so a half-written recording never
// carries the final name. It is not safe for concurrent use.
type Writer struct {
	// BeforePublish, when set, runs on the finished temporary file just before it is
	// renamed into place; an error keeps the recording from being published (the leak
	// guard hooks in here).
	BeforePublish func(tmpPath string) error

	path, tmp string
	f         *os.File
	bw        *bufio.Writer
	start     time.Time
	now       func() time.Time
	frames    map[string]int64
	findings  int64
	segments  int
	buf       []byte
	closed    bool
}

// Options for Create.
type Options struct {
	Force bool // overwrite an existing recording
	Now   func() time.Time
}

// Create starts a recording that will be published at path. It writes the header
// immediately, with Format and Started filled in when zero.
func Create(path string, h Header, opt Options) (*Writer, error) {
	if !opt.Force {
		if _, err := os.Lstat(path); err == nil {
			return nil, fmt.Errorf("record %s: %w", path, ErrExists)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("record %s: %w", path, err)
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("record %s: %w", path, err)
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("record %s: %w", path, err)
	}
	now := time.Now
	if opt.Now != nil {
		now = opt.Now
	}
	w := &Writer{path: path, tmp: f.Name(), f: f, bw: bufio.NewWriterSize(f, 256<<10),
		start: now(), now: now, frames: map[string]int64{"c2s": 0, "s2c": 0, "stderr": 0}}
	if h.Format == 0 {
		h.Format = FormatVersion
	}
	if h.Started == "" {
		h.Started = w.start.UTC().Format(time.RFC3339Nano)
	}
	if err := w.writeJSON(struct {
		Type EntryType `json:"type"`
		*Header
	}{TypeHeader, &h}); err != nil {
		w.Abort()
		return nil, err
	}
	return w, nil
}

// Path is where the recording will be published; TempPath is where it is written now.
func (w *Writer) Path() string     { return w.path }
func (w *Writer) TempPath() string { return w.tmp }

// WriteFrame appends one frame. The message is embedded as the exact JSON it was on
// the wire; lines that are not a JSON object, or that carry whitespace around it, keep
// their exact bytes in "raw" (or "rawBase64" when they are not valid UTF-8).
func (w *Writer) WriteFrame(f *wire.Frame) error {
	b := w.buf[:0]
	b = append(b, `{"type":"frame","seq":`...)
	b = strconv.AppendInt(b, f.Seq, 10)
	b = appendTime(b, f.Time)
	b = append(b, `,"dir":"`...)
	b = append(b, f.Dir.String()...)
	b = append(b, '"')
	content := wire.Content(f.Line)
	if f.Dir != wire.Stderr {
		b = append(b, `,"kind":"`...)
		b = append(b, f.Msg.Kind.String()...)
		b = append(b, '"')
		if f.Msg.Method != "" {
			b = append(b, `,"method":`...)
			b = jsonx.EscapeDEL.AppendString(b, f.Msg.Method)
		}
		if f.Msg.ID != "" {
			b = append(b, `,"id":`...)
			b = append(b, f.Msg.ID...)
		}
		if f.Msg.Unpaired {
			b = append(b, `,"unpaired":true`...)
		}
		if f.Msg.Reason != "" {
			b = append(b, `,"reason":`...)
			b = jsonx.EscapeDEL.AppendString(b, f.Msg.Reason)
		}
	}
	if !wire.HasNewline(f.Line) {
		b = append(b, `,"eol":false`...)
	}
	switch {
	case f.Msg.Kind.IsJSON() && f.Dir != wire.Stderr:
		msg := trimSpace(content)
		// A WebSocket message is not a line: pretty-printed JSON may hold raw line
		// breaks, which would split the recording's line. The exact bytes go in raw;
		// msg gets spaces instead (a raw line break in JSON is only ever whitespace).
		broken := bytes.ContainsAny(msg, "\r\n")
		if len(msg) != len(content) || broken {
			b = append(b, `,"raw":`...)
			b = jsonx.EscapeDEL.AppendString(b, string(content))
		}
		if broken {
			msg = oneLine(msg)
		}
		b = append(b, `,"msg":`...)
		// The message goes to the buffered writer as is: copying a 200 KB delta into
		// b first would only add a copy.
		w.buf = b
		w.frames[f.Dir.String()]++
		if _, err := w.bw.Write(b); err != nil {
			return fmt.Errorf("record %s: frame %d: %w", w.path, f.Seq, err)
		}
		if _, err := w.bw.Write(msg); err != nil {
			return fmt.Errorf("record %s: frame %d: %w", w.path, f.Seq, err)
		}
		if _, err := w.bw.WriteString("}\n"); err != nil {
			return fmt.Errorf("record %s: frame %d: %w", w.path, f.Seq, err)
		}
		return nil
	case utf8.Valid(content):
		b = append(b, `,"raw":`...)
		b = jsonx.EscapeDEL.AppendString(b, string(content))
	default:
		b = append(b, `,"rawBase64":"`...)
		b = base64.StdEncoding.AppendEncode(b, content)
		b = append(b, '"')
	}
	b = append(b, "}\n"...)
	w.buf = b
	w.frames[f.Dir.String()]++
	if _, err := w.bw.Write(b); err != nil {
		return fmt.Errorf("record %s: frame %d: %w", w.path, f.Seq, err)
	}
	return nil
}

// WriteEntry appends an annotation, meta, segment or exit entry.
func (w *Writer) WriteEntry(e Entry) error {
	type out struct {
		Type     EntryType `json:"type"`
		Seq      int64     `json:"seq,omitempty"`
		T        jsonTime  `json:"t"`
		Dir      string    `json:"dir,omitempty"`
		Method   string    `json:"method,omitempty"`
		Rule     string    `json:"rule,omitempty"`
		Severity string    `json:"severity,omitempty"`
		Pointer  *string   `json:"pointer,omitempty"`
		Reason   string    `json:"reason,omitempty"`
		Detail   string    `json:"detail,omitempty"`
		Segment  int       `json:"segment,omitempty"`
		Command  []string  `json:"command,omitempty"`
		ExitCode *int      `json:"exitCode,omitempty"`
		Signal   string    `json:"signal,omitempty"`
		Header   *Header   `json:"header,omitempty"`
	}
	o := out{Type: e.Type, Seq: e.Seq, T: jsonTime(e.Time), Method: e.Msg.Method, Rule: e.Rule,
		Severity: e.Severity, Reason: e.Reason, Detail: e.Detail, Segment: e.Segment,
		Command: e.Command, Signal: e.Signal, Header: e.Header}
	if e.Dir != 0 {
		o.Dir = e.Dir.String()
	}
	switch e.Type {
	case TypeFinding, TypeRedaction:
		o.Pointer = &e.Pointer
		if e.Type == TypeFinding {
			w.findings++
		}
	case TypeExit:
		o.ExitCode = &e.ExitCode
	case TypeSegment:
		w.segments++
	case TypeFrame, TypeHeader, TypeTrailer:
		return fmt.Errorf("record %s: WriteEntry cannot write a %s entry", w.path, e.Type)
	}
	return w.writeJSON(o)
}

// UpdateHeader records header facts learned during the session as a meta entry.
func (w *Writer) UpdateHeader(t time.Duration, h Header) error {
	return w.WriteEntry(Entry{Type: TypeMeta, Time: t, Header: &h})
}

// Since is the time elapsed since the recording started.
func (w *Writer) Since() time.Duration { return w.now().Sub(w.start) }

// Flush pushes buffered entries to the file so a reader following it sees them.
func (w *Writer) Flush() error {
	if err := w.bw.Flush(); err != nil {
		return fmt.Errorf("record %s: %w", w.path, err)
	}
	return nil
}

// Close writes the trailer, syncs, runs BeforePublish and renames the file into place.
// When BeforePublish fails the temporary file is removed and its error returned.
func (w *Writer) Close(t Trailer) error {
	if w.closed {
		return nil
	}
	if t.Duration == 0 { // a copy (codexrec sanitize) keeps the source's duration
		t.Duration = w.Since().Seconds()
	}
	t.Frames = w.frames
	t.Findings = w.findings
	if w.segments > 0 {
		t.Segments = w.segments
	}
	err := w.writeJSON(struct {
		Type EntryType `json:"type"`
		*Trailer
	}{TypeTrailer, &t})
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = w.f.Sync()
	}
	if cerr := w.f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	w.closed = true
	if err == nil && w.BeforePublish != nil {
		err = w.BeforePublish(w.tmp)
	}
	if err == nil {
		err = os.Rename(w.tmp, w.path)
	}
	if err != nil {
		os.Remove(w.tmp)
		return fmt.Errorf("record %s: %w", w.path, err)
	}
	return nil
}

// Abort discards the recording.
func (w *Writer) Abort() error {
	if w.closed {
		return nil
	}
	w.closed = true
	w.f.Close()
	return os.Remove(w.tmp)
}

func (w *Writer) writeJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("record %s: %w", w.path, err)
	}
	b = append(b, '\n')
	if _, err := w.bw.Write(b); err != nil {
		return fmt.Errorf("record %s: %w", w.path, err)
	}
	return nil
}

type jsonTime time.Duration

func (t jsonTime) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, time.Duration(t).Seconds(), 'f', 6, 64), nil
}

func appendTime(b []byte, d time.Duration) []byte {
	b = append(b, `,"t":`...)
	return strconv.AppendFloat(b, d.Seconds(), 'f', 6, 64)
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// oneLine is msg with every CR and LF replaced by a space.
func oneLine(msg []byte) []byte {
	out := bytes.Clone(msg)
	for i, c := range out {
		if c == '\r' || c == '\n' {
			out[i] = ' '
		}
	}
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
