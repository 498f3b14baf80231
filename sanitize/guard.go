package sanitize

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// ErrLeak is wrapped by the error the guard returns when it found something.
var ErrLeak = errors.New("leak guard: secret-shaped content found")

// Leak is one finding of the guard. It never holds the value, only a masked preview.
type Leak struct {
	Rule    string
	Line    int    // 1-based line of the file
	Seq     int64  // the frame the line is or annotates; 0 for the header, trailer or a non-recording line
	Pointer string // RFC 6901 pointer into the line's JSON; "" for a text line
	Preview string // e.g. "sk-p…(51 chars)"
	// Whole: the finding could not be located at a span of its own, so every string
	// value of its line was replaced.
	Whole bool
}

func (l Leak) String() string {
	where := fmt.Sprintf("line %d", l.Line)
	if l.Seq > 0 {
		where = fmt.Sprintf("seq %d", l.Seq)
	}
	ptr := l.Pointer
	if ptr == "" {
		ptr = "(line)"
	}
	whole := ""
	if l.Whole {
		whole = "  (not located: every string of the line redacted)"
	}
	return EscapeTerminal(fmt.Sprintf("%s  %s  %s  %s%s", l.Rule, where, ptr, l.Preview, whole))
}

// LeakError lists what the guard found in a file.
type LeakError struct {
	File  string
	Leaks []Leak
	// Quarantine, when set, is where the unpublished file was kept (0600).
	Quarantine string
}

func (e *LeakError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "leak guard: %d secret-shaped value(s) in %s; not published:", len(e.Leaks), e.File)
	writeLeaks(&b, e.Leaks)
	if e.Quarantine != "" {
		fmt.Fprintf(&b, "\nthe recording could not be redacted; it is kept, unpublished, in %s (mode 0600)", e.Quarantine)
	}
	return b.String()
}

func (e *LeakError) Unwrap() error { return ErrLeak }

// writeLeaks writes one indented line per leak (each a masked preview).
func writeLeaks(b *strings.Builder, leaks []Leak) {
	for _, l := range leaks {
		b.WriteString("\n  ")
		b.WriteString(l.String())
	}
}

// Mask is a preview of a secret that does not disclose it: a few leading characters
// and the length, like "sk-p…(51 chars)".
func Mask(v []byte) string {
	n := utf8.RuneCount(v)
	show := 0
	switch {
	case n >= 16:
		show = 4
	case n >= 10:
		show = 2
	}
	var prefix []byte
	for i := 0; i < show && len(v) > 0; i++ {
		r, size := utf8.DecodeRune(v)
		if r < 0x20 || r == utf8.RuneError {
			break
		}
		prefix = append(prefix, v[:size]...)
		v = v[size:]
	}
	return string(prefix) + "…(" + strconv.Itoa(n) + " chars)"
}

// Guard scans the file at path with the sanitizer's detectors (deltas joined per
// stream, as GuardRedact does, without changing the file) and returns a *LeakError
// (wrapping ErrLeak) listing everything secret-shaped it holds. A pipe (a named one,
// /dev/stdin, a shell's <(...)) is read to its end into a private temporary file
// first, since the guard reads in passes; a device is refused (ErrDevice).
func (z *Sanitizer) Guard(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.Mode()&(os.ModeDevice|os.ModeCharDevice) != 0 {
		return fmt.Errorf("leak guard: %s: %w", path, ErrDevice)
	}
	src, done, err := recorder.Seekable(path)
	if err != nil {
		return fmt.Errorf("leak guard: %w", err)
	}
	defer done()
	f, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("leak guard: %w", err)
	}
	defer f.Close()
	redacted, leaks, err := z.guardFile(f, false)
	if err != nil {
		return fmt.Errorf("leak guard: %s: %w", path, err)
	}
	if all := append(redacted, leaks...); len(all) > 0 {
		return &LeakError{File: path, Leaks: all}
	}
	return nil
}

// ErrDevice is a device given to scan as a file: its size is no guide to its end
// (/dev/zero has none), so it is not read.
var ErrDevice = errors.New("a device, not a file or a pipe")

// Scan reads r line by line (a recording, or any text) and returns every
// secret-shaped value: the shape rules, and the known secrets in all their encodings
// including their SHA-256 hex. Strings of JSON lines are decoded first, and fields
// ending in "Base64" are decoded and scanned too.
func (z *Sanitizer) Scan(r io.Reader) ([]Leak, error) {
	var leaks []Leak
	err := eachLine(r, func(line []byte, n int) bool {
		leaks = z.scanLine(bytes.TrimSuffix(line, []byte("\n")), n, leaks)
		return true
	})
	return leaks, err
}

// eachLine calls fn with every line of r (with its newline, when it has one) and its
// number, until fn returns false; fn must not keep the line. A read error names the
// line it happened on.
func eachLine(r io.Reader, fn func(line []byte, n int) bool) error {
	// A buffer as large as the input (up to 4 MB, where wire.Lines maps a longer
	// line) holds most long lines whole, so they are not reassembled piece by piece;
	// small inputs get a small buffer.
	size := 64 << 10
	switch v := r.(type) {
	case interface{ Len() int }:
		size = max(size, min(v.Len()+1, 4<<20))
	case interface{ Size() int64 }:
		size = max(size, int(min(v.Size()+1, 4<<20)))
	case *os.File:
		if fi, err := v.Stat(); err == nil {
			size = max(size, int(min(fi.Size()+1, 4<<20)))
		}
	}
	return eachLineBuf(r, size, fn)
}

// eachLineBuf is eachLine starting with a buffer of size bytes.
func eachLineBuf(r io.Reader, size int, fn func(line []byte, n int) bool) error {
	// wire.Lines reads runs of whole lines into one reused buffer; a long line grows
	// in mapped memory (given back at once), not by appending in the heap. Its reads
	// are kept to 1 MB: what a read brings past a line's end is carried, in the heap,
	// to the next, and a read into a long line's buffer could bring most of the next
	// long line (two lines held at once).
	lines := wire.NewLines(shortReads{r})
	buf := make([]byte, 0, size)
	n := 0
	partial := false // the last line read lacked its newline: an error is on that line
	for {
		chunk, err := lines.Next(buf)
		if len(chunk) > 0 {
			partial = !bytes.HasSuffix(chunk, []byte("\n"))
		}
		for rest := chunk; len(rest) > 0; {
			i := bytes.IndexByte(rest, '\n') + 1
			if i == 0 {
				i = len(rest)
			}
			n++
			if !fn(rest[:i], n) {
				release(chunk)
				return nil
			}
			rest = rest[i:]
		}
		if !release(chunk) && cap(chunk) > 0 {
			buf = chunk[:0]
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if !partial {
				n++
			}
			return fmt.Errorf("line %d: %w", n, err)
		}
	}
}

// shortReads reads at most 1 MB at a time.
type shortReads struct{ r io.Reader }

func (s shortReads) Read(p []byte) (int, error) { return s.r.Read(p[:min(len(p), 1<<20)]) }

// release gives back the mapped memory of a long line's chunk, reporting whether it
// was one.
func release(chunk []byte) bool {
	if wire.IsLarge(chunk) {
		wire.Release(chunk)
		return true
	}
	return false
}

func (z *Sanitizer) scanLine(b []byte, n int, leaks []Leak) []Leak {
	return z.scanLineTaking(b, n, leaks, false)
}

// scanLineTaking is scanLine; take says a guard's feed may have left the
// automaton's hits over b (see linehits.go).
func (z *Sanitizer) scanLineTaking(b []byte, n int, leaks []Leak, take bool) []Leak {
	add := func(text []byte, spans []span, ptr string) {
		for _, s := range spans {
			leaks = append(leaks, Leak{Rule: s.rule, Line: n, Pointer: ptr, Preview: Mask(text[s.start:s.end])})
		}
	}
	lineFilter := z.filterForLine(b, true, false, take)
	hidden := lineFilter.hiddenIn(b, 0, len(b))
	b64 := hasB64Run(b)
	if lineFilter.empty() && !hidden && !b64 {
		return leaks
	}
	var rawSpans []span
	if !hidden && !lineFilter.fields {
		// Nothing is spelled differently and no field needs decoding: the raw line is
		// searched as is, and only a finding needs the walk that names its pointer.
		rawSpans = z.find(b, &lineFilter, nil, true)
		if b64 {
			rawSpans = z.base64Spans(b, rawSpans, true, 0)
		}
		if len(rawSpans) == 0 {
			return leaks
		}
	}
	if !gjson.ValidBytes(b) {
		lineFilter = lineFilter.text()
		add(b, z.find(b, &lineFilter, nil, true), "")
		return leaks
	}
	first := len(leaks)
	var w walker
	var spans []span
	w.walk(b, func(t token) {
		raw := b[t.start:t.end]
		text, f := raw, lineFilter.within(t.start, t.end)
		if t.escaped && (lineFilter.hiddenIn(b, t.start, t.end) || f.contextual()) {
			text, _ = unescape(raw, nil)
			f = z.filterFor(text, true).text()
		}
		spans = z.find(text, &f, spans[:0], true)
		if b64 {
			spans = z.base64Spans(text, spans, true, 0)
		}
		if len(spans) > 0 {
			add(text, spans, w.pointer())
		}
		if !t.isKey && bytes.HasSuffix(w.memberKey(), []byte("Base64")) && isBase64(raw) {
			enc := base64.StdEncoding
			if len(raw)%4 != 0 {
				enc = base64.RawStdEncoding
			}
			if dec, err := enc.AppendDecode(nil, raw); err == nil {
				f := z.filterFor(dec, true).text()
				if spans = z.find(dec, &f, spans[:0], true); len(spans) > 0 {
					add(dec, spans, w.pointer())
				}
			}
		}
	})
	if len(leaks) == first && len(rawSpans) > 0 {
		add(b, rawSpans, "") // found in the raw line only (across strings): never dropped
	}
	if len(leaks) > first {
		seq := gjson.GetBytes(b, "seq").Int()
		for i := first; i < len(leaks); i++ {
			leaks[i].Seq = seq
		}
	}
	return leaks
}
