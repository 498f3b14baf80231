package recorder

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/codexrec/codexrec/internal/jsonx"
	"github.com/codexrec/codexrec/wire"
)

// Writer appends entries to a recording. It writes to a 0600 temporary file beside
// the target and publishes it on Close, so a half-written recording never carries the
// final name; while it writes, it holds a lock on that file (where the platform has
// one), so that a reader can tell a recording in progress from one whose writer was
// killed. It is not safe for concurrent use.
type Writer struct {
	// BeforePublish, when set, runs on the finished temporary file just before it is
	// published; an error keeps the recording from being published (the leak guard
	// hooks in here).
	BeforePublish func(tmpPath string) error

	// Written, when set, is called on the writer's goroutine each time bytes reach
	// the temporary file, with the file's length so far: a reader following the file
	// (the leak guard, as the session goes) may read up to there. It must not block.
	Written func(size int64)

	path, tmp string
	published string
	force     bool
	before    fs.FileInfo // what was at path when the recording started (--force replaces only that)
	f         *os.File
	out       io.Writer // f, or Options.WrapFile's wrapper of it
	lb        lineBuf
	start     time.Time
	now       func() time.Time
	buf       []byte
	closed    bool
	size      int64 // bytes written to the file, for Written
	wbFrom    int64 // where the next writeback starts
	wbBusy    atomic.Bool
	wb        sync.WaitGroup // writebacks in flight
}

// Options for Create. The zero value refuses to replace an existing recording and
// uses the wall clock.
type Options struct {
	Force bool // replace an existing recording (a regular file or a symbolic link)
	Now   func() time.Time
	// WrapFile, when set, wraps the temporary file's writer: every byte of the
	// recording, trailer included, goes through it. Tests inject write faults (a
	// disk filling up) with it.
	WrapFile func(io.Writer) io.Writer
}

// Create starts a recording that will be published at path. It writes the header
// immediately, with Format and Started filled in when zero. Every problem that can be
// known before the session (see CheckTarget) is an error here, naming the directory
// or the target, never the temporary file.
func Create(path string, h Header, opt Options) (*Writer, error) {
	if err := CheckTarget(path, opt.Force); err != nil {
		return nil, err
	}
	var before fs.FileInfo
	if opt.Force {
		before, _ = os.Lstat(path)
	}
	f, tmp, err := createLocked(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, writableDirError(path, err)
	}
	now := time.Now
	if opt.Now != nil {
		now = opt.Now
	}
	w := &Writer{path: path, tmp: tmp, f: f, force: opt.Force, before: before, start: now(), now: now}
	w.out = f
	if opt.WrapFile != nil {
		w.out = opt.WrapFile(f)
	}
	w.lb.w = writtenHook{w}
	if h.Format == 0 {
		h.Format = FormatVersion
	}
	if h.Started == "" {
		h.Started = w.start.UTC().Format(time.RFC3339Nano)
	}
	err = w.writeJSON(mark{}, struct {
		Type EntryType `json:"type"`
		*Header
	}{TypeHeader, &h})
	if err == nil {
		// On disk before the session starts: a file system that cannot take the header
		// fails here, and a recording cut short later still begins with it.
		err = w.Flush()
	}
	if err != nil {
		w.Abort()
		return nil, err
	}
	return w, nil
}

// Err is the first write error, after which nothing more is written (Close still
// keeps what was written whole), or nil.
func (w *Writer) Err() error { return w.lb.err }

// Path is where the recording will be published; TempPath is where it is written now.
func (w *Writer) Path() string     { return w.path }
func (w *Writer) TempPath() string { return w.tmp }

// PublishedPath is where Close left the recording: Path, or another name when Path
// could not be used (see KeptElsewhereError), or TempPath when publishing failed.
// It is empty before Close and after Abort.
func (w *Writer) PublishedPath() string { return w.published }

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
	if f.Undelivered {
		b = append(b, `,"undelivered":true`...)
	}
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
		// Two IndexByte calls (vectorised) rather than ContainsAny, which tests byte
		// by byte: this ran over every recorded message (10% of bulk CPU).
		broken := bytes.IndexByte(msg, '\n') >= 0 || bytes.IndexByte(msg, '\r') >= 0
		if len(msg) != len(content) || broken {
			b = append(b, `,"raw":`...)
			b = jsonx.EscapeDEL.AppendString(b, string(content))
		}
		if broken {
			msg = oneLine(msg)
		}
		b = append(b, `,"msg":`...)
		// The message goes to the buffer as is: copying a 200 KB delta into b first
		// would only add a copy.
		w.buf = b
		if err := w.lb.add(mark{dir: int8(f.Dir), undelivered: f.Undelivered}, b, msg, closeFrame); err != nil {
			return fmt.Errorf("recording %s: frame %d: %w", w.path, f.Seq, err)
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
	if err := w.lb.add(mark{dir: int8(f.Dir), undelivered: f.Undelivered}, b); err != nil {
		return fmt.Errorf("recording %s: frame %d: %w", w.path, f.Seq, err)
	}
	return nil
}

var closeFrame = []byte("}\n")

// writtenHook writes to the writer's file and tells Writer.Written.
type writtenHook struct{ w *Writer }

func (h writtenHook) Write(p []byte) (int, error) {
	w := h.w
	n, err := w.out.Write(p)
	w.size += int64(n)
	// None starts once Close or Abort began (closed): they waited for the last one
	// and then close the file; the tail is left to Close's fsync.
	if w.size-w.wbFrom >= writebackEvery && !w.closed && !w.wbBusy.Load() {
		// What is written goes to the disk as the session goes, on a goroutine of its
		// own: the fsync that closes the recording (after the server's exit) then has
		// only the tail to write, not the whole session (250 ms per 100 MB here).
		from, size := w.wbFrom, w.size-w.wbFrom
		w.wbFrom = w.size
		w.wbBusy.Store(true)
		w.wb.Add(1)
		go func() {
			defer w.wb.Done()
			writeback(w.f, from, size)
			w.wbBusy.Store(false)
		}()
	}
	if n > 0 && w.Written != nil {
		w.Written(w.size)
	}
	return n, err
}

// writebackEvery is how much is written between two writebacks.
const writebackEvery = 4 << 20

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
		Extends  int       `json:"extends,omitempty"`
		Command  []string  `json:"command,omitempty"`
		ExitCode *int      `json:"exitCode,omitempty"`
		Signal   string    `json:"signal,omitempty"`
		Header   *Header   `json:"header,omitempty"`
	}
	o := out{Type: e.Type, Seq: e.Seq, T: jsonTime(e.Time), Method: e.Msg.Method, Rule: e.Rule,
		Severity: e.Severity, Reason: e.Reason, Detail: e.Detail, Segment: e.Segment, Extends: e.Extends,
		Command: e.Command, Signal: e.Signal, Header: e.Header}
	if e.Dir != 0 {
		o.Dir = e.Dir.String()
	}
	var m mark
	switch e.Type {
	case TypeFinding, TypeRedaction:
		o.Pointer = &e.Pointer
		m.finding = e.Type == TypeFinding
	case TypeExit:
		o.ExitCode = &e.ExitCode
	case TypeSegment:
		m.segment = true
	case TypeFrame, TypeHeader, TypeTrailer:
		return fmt.Errorf("recording %s: WriteEntry cannot write a %s entry", w.path, e.Type)
	}
	return w.writeJSON(m, o)
}

// UpdateHeader records header facts learned during the session as a meta entry.
func (w *Writer) UpdateHeader(t time.Duration, h Header) error {
	return w.WriteEntry(Entry{Type: TypeMeta, Time: t, Header: &h})
}

// Since is the time elapsed since the recording started.
func (w *Writer) Since() time.Duration { return w.now().Sub(w.start) }

// Flush pushes buffered entries to the file so a reader following it sees them.
func (w *Writer) Flush() error {
	if err := w.lb.flush(); err != nil {
		return fmt.Errorf("recording %s: %w", w.path, err)
	}
	return nil
}

// Close writes the trailer, syncs, runs BeforePublish and publishes the file (see
// Options.Force and KeptElsewhereError). When BeforePublish fails the temporary file
// is removed and its error returned.
//
// After a write error (a full disk) Close still leaves a recording: the file is cut
// back to the last entry written whole and closed with a trailer that says so
// (ended "error") and counts what it holds; if even that cannot be written, the file
// is published as it is, cut short, which readers accept. Close then returns an error
// wrapping ErrCutShort that says where the recording is.
func (w *Writer) Close(t Trailer) error {
	if w.closed {
		return nil
	}
	w.closed = true
	defer w.f.Close() // after publishing: the lock says the writer is still at work
	w.wb.Wait()
	if t.Duration == 0 { // a copy (codexrec sanitize) keeps the source's duration
		t.Duration = w.Since().Seconds()
	}
	werr := w.lb.err
	if werr == nil {
		werr = w.writeTrailer(t, false)
	}
	var pe *fs.PathError
	if errors.As(werr, &pe) {
		werr = pe.Err // the temporary file's name means nothing to the user
	}
	cut := ""
	if werr != nil {
		cut = "closed with a trailer"
		if t.Ended != EndError || t.Error == "" {
			t.Ended, t.Error = EndError, "writing the recording: "+werr.Error()
		}
		if err := w.cutBack(t); err != nil {
			cut = "cut short without a trailer"
		}
	} else if err := w.f.Sync(); err != nil {
		// Still published: what the kernel holds may yet reach the disk.
		werr, cut = fmt.Errorf("sync: %w", err), "complete but perhaps not on disk"
	}
	if w.BeforePublish != nil {
		if err := w.BeforePublish(w.tmp); err != nil {
			return w.fail(err)
		}
	}
	where, err := publish(w.tmp, w.path, w.force, w.before)
	w.published = where
	if werr != nil {
		if err != nil {
			return fmt.Errorf("recording %s: %w (%v): %v", w.path, ErrCutShort, werr, err)
		}
		return fmt.Errorf("recording %s: %w (%v): what was recorded is at %s, %s", w.path, ErrCutShort, werr, where, cut)
	}
	return err
}

// writeTrailer writes the trailer, counting the entries written whole.
func (w *Writer) writeTrailer(t Trailer, direct bool) error {
	if !direct {
		if err := w.lb.flush(); err != nil {
			return err
		}
	}
	d := w.lb.done
	t.Frames = map[string]int64{"c2s": d.frames[wire.ClientToServer], "s2c": d.frames[wire.ServerToClient],
		"stderr": d.frames[wire.Stderr]}
	t.Findings = d.findings
	t.Undelivered = d.undelivered
	if d.segments > 0 {
		t.Segments = d.segments
	}
	b, err := json.Marshal(struct {
		Type EntryType `json:"type"`
		*Trailer
	}{TypeTrailer, &t})
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if direct {
		out := w.out
		if out == nil { // Recover's writer
			out = w.f
		}
		_, err = out.Write(b)
		return err
	}
	if err := w.lb.add(mark{}, b); err != nil {
		return err
	}
	return w.lb.flush()
}

// cutBack removes a partly written entry from the end of the file and appends t.
func (w *Writer) cutBack(t Trailer) error {
	if w.Written != nil {
		w.Written(-1)
	}
	if err := w.f.Truncate(w.lb.doneOff); err != nil {
		return err
	}
	if _, err := w.f.Seek(w.lb.doneOff, io.SeekStart); err != nil {
		return err
	}
	if err := w.writeTrailer(t, true); err != nil {
		// Leave the file ending at a whole line rather than in a partial trailer.
		w.f.Truncate(w.lb.doneOff)
		return err
	}
	return w.f.Sync()
}

// fail ends a Close that cannot publish: the temporary file is removed.
func (w *Writer) fail(err error) error {
	w.f.Close()
	os.Remove(w.tmp)
	return fmt.Errorf("recording %s: %w", w.path, err)
}

// Abort discards the recording.
func (w *Writer) Abort() error {
	if w.closed {
		return nil
	}
	w.closed = true
	w.wb.Wait()
	w.f.Close()
	return os.Remove(w.tmp)
}

func (w *Writer) writeJSON(m mark, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("recording %s: %w", w.path, err)
	}
	b = append(b, '\n')
	if err := w.lb.add(m, b); err != nil {
		return fmt.Errorf("recording %s: %w", w.path, err)
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
