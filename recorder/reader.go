package recorder

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/internal/jsonx"
	"github.com/codexrec/codexrec/wire"
)

// Reader reads a recording entry by entry, so memory stays proportional to one entry.
type Reader struct {
	lr *wire.Reader
	// mem, when set, is the whole recording in memory (ReadFile): lines are slices of
	// it, not copies, and every frame's message is used where it lies.
	mem     []byte
	inMem   bool
	name    string
	lineNo  int
	header  Header
	trailer *Trailer

	// What the structure checks keep.
	off       int64 // bytes of the lines read
	wholeOff  int64 // where the last line read whole and valid ends
	lastSeq   int64 // the last frame's seq
	seen      counts
	problems  []Problem
	truncated bool
	afterEnd  bool // an entry followed the trailer
	trailers  int
	// unreadable counts the whole lines skipped because they are no entry.
	unreadable int
}

// NewReader reads the header from r. name is used in errors (a file name).
func NewReader(r io.Reader, name string) (*Reader, error) {
	return newReader(&Reader{lr: wire.NewReader(r), name: name})
}

func newReader(rd *Reader) (*Reader, error) {
	name := rd.name
	// A header is a JSON object: a first line that starts otherwise is refused
	// before it is read whole (a binary file, or a device without end that has
	// no newline: /dev/zero would grow the line until memory ran out).
	head := rd.mem
	if !rd.inMem {
		head, _ = rd.lr.Peek(64)
	}
	if notHeader(head) {
		return nil, fmt.Errorf("recording %s: line 1: %w", name, ErrNoHeader)
	}
	line, err := rd.readLine()
	rd.lineNo++
	rd.off = int64(len(line))
	rd.wholeOff = rd.off
	if err == io.EOF {
		return nil, fmt.Errorf("recording %s: empty file: %w", name, ErrNoHeader)
	}
	if err != nil {
		return nil, fmt.Errorf("recording %s: %w", name, err)
	}
	if gjson.GetBytes(line, "type").Str != string(TypeHeader) {
		return nil, fmt.Errorf("recording %s: line 1: %w", name, ErrNoHeader)
	}
	if err := json.Unmarshal(line, &rd.header); err != nil {
		return nil, fmt.Errorf("recording %s: line 1: header: %w", name, err)
	}
	if rd.header.Format < 1 || rd.header.Format > FormatVersion {
		return nil, fmt.Errorf("recording %s: format %d (this reader reads 1 to %d): %w",
			name, rd.header.Format, FormatVersion, ErrFormatVersion)
	}
	return rd, nil
}

// Header is the header with every meta entry read so far merged in.
func (r *Reader) Header() Header { return r.header }

// Trailer is the trailer, or nil if it has not been read yet or the recording has none
// (it was cut short).
func (r *Reader) Trailer() *Trailer { return r.trailer }

// Entries ranges over the entries Next returns, stopping at io.EOF. Any other error
// is yielded once, with the zero Entry, and ends the range:
//
//	for e, err := range rd.Entries() {
//		if err != nil {
//			return err
//		}
//		...
//	}
func (r *Reader) Entries() iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		for {
			e, err := r.Next()
			if err == io.EOF {
				return
			}
			if !yield(e, err) || err != nil {
				return
			}
		}
	}
}

// Next returns the next entry other than the header and trailer, or io.EOF.
// Meta entries are returned too, after being merged into Header.
//
// A last line cut short (no newline, not a whole entry: the writer was killed or the
// disk filled up) ends the recording like EOF and is reported by Truncated and
// Problems; every entry before it is returned. Any other line that is not an entry
// (garbage, a stray line after the trailer) is skipped and reported as
// ProblemUnreadable with its line number. Structural problems (see Problem) are
// collected, not errors.
func (r *Reader) Next() (Entry, error) {
	for {
		line, err := r.readLine()
		if err != nil {
			if err == io.EOF {
				r.atEOF()
				return Entry{}, io.EOF
			}
			return Entry{}, fmt.Errorf("recording %s: line %d: %w", r.name, r.lineNo+1, err)
		}
		r.lineNo++
		r.off += int64(len(line))
		if len(wire.Content(line)) == 0 {
			r.wholeOff = r.off
			continue
		}
		e, err := r.parse(line)
		if err != nil {
			if !wire.HasNewline(line) && !r.truncated {
				r.truncated = true
				r.problem(ProblemTruncated, 0, fmt.Sprintf("the last line (%d bytes) was cut short", len(line)))
				r.atEOF()
				return Entry{}, io.EOF
			}
			// A whole line that is no entry (garbage appended to the file, a line
			// edited by hand) is skipped and reported: the entries around it stand.
			r.unreadable++
			r.problem(ProblemUnreadable, 0, fmt.Sprintf("%v: skipped", err))
			continue
		}
		r.wholeOff = r.off
		if r.trailer != nil && !r.afterEnd && (e.Type != TypeTrailer || r.trailers > 0) {
			r.afterEnd = true
			r.problem(ProblemTrailerNotLast, e.Seq, "the trailer is followed by more entries")
		}
		switch e.Type {
		case TypeTrailer:
			r.trailers++
			continue
		case TypeHeader:
			r.problem(ProblemHeaders, 0, "a second header")
			continue
		case TypeFrame:
			if e.Seq <= r.lastSeq {
				r.problem(ProblemSeqOrder, e.Seq, fmt.Sprintf("frame seq %d after seq %d", e.Seq, r.lastSeq))
			}
			r.lastSeq = max(r.lastSeq, e.Seq)
			r.seen.frames[e.Dir]++
			if e.Undelivered {
				r.seen.undelivered++
			}
		case TypeSegment:
			r.seen.segments++
		case TypeFinding:
			r.seen.findings++
		}
		return e, nil
	}
}

// readLine returns the next line, a slice of mem or a new one from lr.
func (r *Reader) readLine() ([]byte, error) {
	if !r.inMem {
		return r.lr.ReadLine()
	}
	if len(r.mem) == 0 {
		return nil, io.EOF
	}
	n := len(r.mem)
	if i := bytes.IndexByte(r.mem, '\n'); i >= 0 {
		n = i + 1
	}
	line := r.mem[:n:n]
	r.mem = r.mem[n:]
	return line, nil
}

func (r *Reader) parse(line []byte) (Entry, error) {
	content := wire.Content(line)
	// line is ours and never modified, so gjson may alias it.
	s := unsafe.String(unsafe.SliceData(content), len(content))
	// gjson's validator recurses once per level: a line nested deeper than any
	// message codexrec records (wire takes a deeper line for raw text) is not
	// validated, and its message is read as raw text (below), as the proxy would have
	// recorded it. The entry object adds one level to its message's.
	deep := jsonx.DeeperThan(content, jsonx.MaxDepth+1)
	if deep && !wire.HasNewline(line) {
		return Entry{}, errors.New("not a JSON object: cut short")
	}
	if !deep && !gjson.Valid(s) {
		return Entry{}, errors.New("not a JSON object")
	}
	var e Entry
	var raw, msg, rawB64 string
	var hasRaw, hasMsg, hasB64 bool
	var msgAt int // where msg starts in content (0: unknown)
	eol := true
	var derr error
	gjson.Parse(s).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			e.Type = EntryType(v.Str)
		case "seq":
			e.Seq, derr = parseSeq(v)
		case "t":
			e.Time, derr = parseTime(v)
		case "undelivered":
			e.Undelivered = v.Bool()
		case "dir":
			e.Dir, derr = wire.ParseDirection(v.Str)
		case "kind":
			e.Msg.Kind, derr = wire.ParseKind(v.Str)
		case "method":
			e.Msg.Method = v.Str
		case "id":
			e.Msg.ID = wire.ID(v.Raw)
		case "unpaired":
			e.Msg.Unpaired = v.Bool()
		case "reason":
			e.Msg.Reason = v.Str
			e.Reason = v.Str
		case "eol":
			eol = v.Bool()
		case "raw":
			raw, hasRaw = v.Str, true
		case "rawBase64":
			rawB64, hasB64 = v.Str, true
		case "msg":
			msg, hasMsg, msgAt = v.Raw, true, v.Index
		case "rule":
			e.Rule = v.Str
		case "severity":
			e.Severity = v.Str
		case "pointer":
			e.Pointer = v.Str
		case "detail":
			e.Detail = v.Str
		case "segment":
			e.Segment = int(v.Int())
		case "extends":
			e.Extends = int(v.Int())
		case "command":
			for _, c := range v.Array() {
				e.Command = append(e.Command, c.Str)
			}
		case "exitCode":
			e.ExitCode = int(v.Int())
		case "signal":
			e.Signal = v.Str
		case "header":
			if err := json.Unmarshal([]byte(v.Raw), &r.header); err != nil {
				derr = fmt.Errorf("meta header: %w", err)
			}
			h := r.header
			e.Header = &h
		}
		return derr == nil
	})
	if derr != nil {
		return Entry{}, derr
	}
	switch e.Type {
	case "":
		return Entry{}, errors.New(`entry has no "type"`)
	case TypeTrailer:
		var t Trailer
		if err := json.Unmarshal(content, &t); err != nil {
			return Entry{}, fmt.Errorf("trailer: %w", err)
		}
		if r.trailer == nil {
			r.trailer = &t
		}
	case TypeFrame:
		var body []byte
		switch {
		case hasRaw:
			body = []byte(raw)
		case hasB64:
			b, err := base64.StdEncoding.DecodeString(rawB64)
			if err != nil {
				return Entry{}, fmt.Errorf("frame %d: rawBase64: %w", e.Seq, err)
			}
			body = b
		case hasMsg && !deep && (len(msg) >= aliasMsg || r.inMem) && msgAt > 0 && msgAt+len(msg) < len(content) && string(content[msgAt:msgAt+len(msg)]) == msg:
			// A large message is used where it lies in the line, which is the
			// reader's own (wire.ReadLine allocates it): a 100 MB frame is not
			// copied once more. Its newline overwrites the entry's closing brace.
			body = content[msgAt : msgAt+len(msg) : msgAt+len(msg)+1]
		case hasMsg:
			body = make([]byte, len(msg), len(msg)+1)
			copy(body, msg)
			if deep {
				e.Msg = wire.Message{Kind: wire.KindRaw, Reason: wire.ReasonNotJSON}
				r.problem(ProblemTooDeep, e.Seq, fmt.Sprintf("frame %d nests deeper than %d levels: read as raw text", e.Seq, jsonx.MaxDepth))
			}
		default:
			return Entry{}, fmt.Errorf("frame %d: no msg, raw or rawBase64", e.Seq)
		}
		if eol {
			body = append(body, '\n')
		}
		e.Line = body
		if e.Dir == 0 {
			return Entry{}, fmt.Errorf("frame %d: no dir", e.Seq)
		}
	}
	return e, nil
}

// aliasMsg is the size from which a frame's message is used in place in the line
// read instead of copied: below it, a copy keeps less of the line alive.
const aliasMsg = 64 << 10

// Recording is a whole recording in memory.
type Recording struct {
	Name    string
	Header  Header
	Entries []Entry // everything but header and trailer, in file order
	Trailer *Trailer
	// Problems are the structural problems the reader found (see Reader.Problems).
	Problems []Problem
}

// ReadAll reads a whole recording from r.
func ReadAll(r io.Reader, name string) (*Recording, error) {
	rd, err := NewReader(r, name)
	if err != nil {
		return nil, err
	}
	rec := &Recording{Name: name}
	for e, err := range rd.Entries() {
		if err != nil {
			return nil, err
		}
		rec.Entries = append(rec.Entries, e)
	}
	rec.Header = rd.Header()
	rec.Trailer = rd.Trailer()
	rec.Problems = rd.Problems()
	return rec, nil
}

// ReadFile reads the recording at path. The file is read whole into one buffer that
// the entries' lines and strings are slices of, and Entries is allocated once at its
// line count: the recording costs its size plus one Entry a line, not a copy of every
// line besides (a 1M-frame recording would otherwise take several times its size).
func ReadFile(path string) (*Recording, error) {
	data, err := ReadBytes(path)
	if err != nil {
		return nil, err
	}
	rd, err := newReader(&Reader{mem: data, inMem: true, name: path})
	if err != nil {
		return nil, err
	}
	rec := &Recording{Name: path, Entries: make([]Entry, 0, max(bytes.Count(data, []byte{'\n'})-1, 0))}
	for e, err := range rd.Entries() {
		if err != nil {
			return nil, err
		}
		rec.Entries = append(rec.Entries, e)
	}
	rec.Header = rd.Header()
	rec.Trailer = rd.Trailer()
	rec.Problems = rd.Problems()
	return rec, nil
}

// notHeader reports whether the first bytes of a file cannot start a header line:
// the first byte other than a space or a tab is not '{'.
func notHeader(head []byte) bool {
	head = bytes.TrimLeft(head[:min(len(head), 64)], " \t")
	return len(head) > 0 && head[0] != '{'
}

// ReadBytes is the content of the recording file at path, for NewBytesReader: as
// os.ReadFile, but a file whose first bytes cannot start a header is refused
// (ErrNoHeader) before the rest is read, since a device without end (/dev/zero)
// would never be read whole.
func ReadBytes(path string) ([]byte, error) {
	data, err := readFile(path)
	if errors.Is(err, ErrNoHeader) {
		return nil, fmt.Errorf("recording %s: line 1: %w", path, err)
	} else if err != nil {
		return nil, fmt.Errorf("recording: %w", err)
	}
	return data, nil
}

func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := 512
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = max(size, int(fi.Size())+1)
	}
	data := make([]byte, 0, size)
	for checked := false; ; {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if !checked && (len(data) >= 64 || err != nil) { // as NewReader decides: on 64 bytes
			if checked = true; notHeader(data) {
				return nil, ErrNoHeader
			}
		}
		if err == io.EOF {
			return data, nil
		} else if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

// Frames returns the frame entries, optionally only those of the given directions.
func (rec *Recording) Frames(dirs ...wire.Direction) []Entry {
	var out []Entry
	for _, e := range rec.Entries {
		if e.Type != TypeFrame {
			continue
		}
		if len(dirs) == 0 || containsDir(dirs, e.Dir) {
			out = append(out, e)
		}
	}
	return out
}

// Segments splits the entries at each segment entry: one slice per server process
// lifetime. A recording without segment entries is one segment.
func (rec *Recording) Segments() [][]Entry {
	var out [][]Entry
	var cur []Entry
	for _, e := range rec.Entries {
		if e.Type == TypeSegment && len(cur) > 0 {
			out = append(out, cur)
			cur = nil
		}
		cur = append(cur, e)
	}
	if len(cur) > 0 || len(out) == 0 {
		out = append(out, cur)
	}
	return out
}

func containsDir(dirs []wire.Direction, d wire.Direction) bool {
	for _, x := range dirs {
		if x == d {
			return true
		}
	}
	return false
}
