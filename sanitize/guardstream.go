package sanitize

import (
	"bytes"
	"io"

	"github.com/tidwall/gjson"
)

// The guard's passes read a finished recording line by line (eachLine: one reused
// buffer, a long line in mapped memory given back at once). A delta is sanitized
// knowing the next frame, as when recording: that frame is read ahead from the file
// and only what the sanitizer reads of it is kept (Lookahead), so no line is copied.

// guardLines calls fn with each non-blank line of r (size bytes) as the guard's
// sanitizer g rewrites it (out, and the redactions; out is the line when nothing
// changed), until fn returns false. blank receives the blank lines.
func (z *Sanitizer) guardLines(r io.ReaderAt, size int64, blank func(line []byte) error, fn func(n int, content, out []byte, reds []Redaction) bool) error {
	g := z.guardSanitizer()
	var off int64 // where the line after the current one begins
	var stop error
	err := eachLine(io.NewSectionReader(r, 0, size), func(line []byte, n int) bool {
		off += int64(len(line))
		if len(bytes.TrimSpace(line)) == 0 {
			if blank != nil {
				stop = blank(line)
			}
			return stop == nil
		}
		content := bytes.TrimSuffix(line, []byte("\n"))
		isJSON := gjson.ValidBytes(content)
		var out []byte
		var reds []Redaction
		if _, _, _, ok := deltaRaw(content); ok && isJSON {
			var next []byte
			if next, stop = nextFrameAt(r, off, size); stop != nil {
				return false
			}
			out, reds = g.FrameFollowedBy(line, true, next)
		} else {
			out, reds = g.frameWith(line, content, func() bool { return isJSON }, nil)
		}
		return fn(n, content, out, reds)
	})
	if err == nil {
		err = stop
	}
	return err
}

// nothingToRedact reports whether the guard's detectors find nothing in r (size
// bytes): then the redacting pass is not needed. It stops at the first finding.
func (z *Sanitizer) nothingToRedact(r io.ReaderAt, size int64) (bool, error) {
	found := false
	err := z.guardLines(r, size, nil, func(_ int, content, _ []byte, reds []Redaction) bool {
		found = len(reds) > 0 || z.rawKnown(content)
		return !found
	})
	return !found, err
}

// redactLines writes r (size bytes) to w with every finding of the guard's
// detectors redacted, and returns the findings, each located by line and seq.
func (z *Sanitizer) redactLines(r io.ReaderAt, size int64, w io.Writer) ([]Leak, error) {
	var redacted []Leak
	var werr error
	write := func(b []byte) error {
		_, err := w.Write(b)
		return err
	}
	err := z.guardLines(r, size, write, func(n int, content, out []byte, reds []Redaction) bool {
		if len(reds) > 0 {
			seq := int64(0)
			if gjson.ValidBytes(content) {
				seq = gjson.GetBytes(content, "seq").Int()
			}
			for _, rd := range reds {
				redacted = append(redacted, Leak{Rule: rd.Rule, Line: n, Seq: seq, Pointer: rd.Pointer, Preview: rd.preview})
			}
		}
		werr = write(out)
		return werr == nil
	})
	if err == nil {
		err = werr
	}
	return redacted, err
}

// findingLines runs the guard's detectors over r (size bytes) and returns what
// they find, by line number.
func (z *Sanitizer) findingLines(r io.ReaderAt, size int64) (map[int][]Leak, error) {
	found := map[int][]Leak{}
	err := z.guardLines(r, size, nil, func(n int, content, _ []byte, reds []Redaction) bool {
		if len(reds) == 0 && z.rawKnown(content) {
			// In the raw line only (it spans JSON strings): no string holds it.
			reds = []Redaction{{Rule: "known-secret", preview: "(across strings)"}}
		}
		if len(reds) > 0 {
			seq := int64(0)
			if gjson.ValidBytes(content) {
				seq = gjson.GetBytes(content, "seq").Int()
			}
			for _, rd := range reds {
				found[n] = append(found[n], Leak{Rule: rd.Rule, Line: n, Seq: seq, Pointer: rd.Pointer, Preview: rd.preview})
			}
		}
		return true
	})
	return found, err
}

// rawKnown reports whether a known secret, in any of its encodings, occurs in the
// raw line b (where no string may hold it whole).
func (z *Sanitizer) rawKnown(b []byte) bool {
	if len(z.secrets) == 0 {
		return false
	}
	f := z.filterFor(b, true)
	for _, i := range f.secrets {
		for _, n := range append(z.needles[i][:len(z.needles[i]):len(z.needles[i])], z.guards[i]...) {
			if bytes.Contains(b, n) {
				return true
			}
		}
	}
	return false
}

// redactWhole writes r (size bytes) to w with every string value of the lines in
// lines replaced whole (see wholeStrings), and returns their findings marked Whole.
func (z *Sanitizer) redactWhole(r io.ReaderAt, size int64, lines map[int][]Leak, w io.Writer) ([]Leak, error) {
	var out []Leak
	var werr error
	err := eachLine(io.NewSectionReader(r, 0, size), func(line []byte, n int) bool {
		ls, ok := lines[n]
		if !ok {
			_, werr = w.Write(line)
			return werr == nil
		}
		for _, l := range ls {
			l.Whole = true
			out = append(out, l)
		}
		content := bytes.TrimSuffix(line, []byte("\n"))
		b := z.wholeNumbers(z.wholeStrings(content))
		if len(content) < len(line) {
			b = append(b, '\n')
		}
		_, werr = w.Write(b)
		return werr == nil
	})
	if err == nil {
		err = werr
	}
	return out, err
}

// wholeStrings replaces every string value of a recording line with one
// placeholder (rule guard-unlocated), but the entry's own type, dir and kind, and
// the message's jsonrpc: what the guard found there could not be located at a span.
// A line that is not JSON becomes one JSON string holding the placeholder.
func (z *Sanitizer) wholeStrings(b []byte) []byte {
	if !gjson.ValidBytes(b) {
		return []byte(`"` + z.placeholder("guard-unlocated", b) + `"`)
	}
	var w walker
	var out []byte
	last := 0
	w.walk(b, func(t token) {
		if t.isKey {
			return
		}
		key := string(w.memberKey())
		switch {
		case len(w.stack) == 1 && (key == "type" || key == "dir" || key == "kind"),
			len(w.stack) == 2 && key == "jsonrpc" && string(w.stack[0].key) == "msg":
			return
		}
		raw := b[t.start:t.end]
		if len(raw) == 0 || isPlaceholder(raw) {
			return
		}
		out = append(out, b[last:t.start]...)
		out = append(out, z.placeholder("guard-unlocated", raw)...)
		last = t.end
	})
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// peekLen bounds what is read ahead of the frame after a delta: the sanitizer reads
// only its start, so a huge next frame is not held besides the delta.
const peekLen = 1 << 20

// nextFrameAt reads r (size bytes long) from off to the first frame line (blank
// lines and annotations are skipped) and returns what the sanitizer reads of it
// (Lookahead), or nil when no frame follows. It reads peekLen bytes, and on only
// when they do not tell.
func nextFrameAt(r io.ReaderAt, off, size int64) ([]byte, error) {
	if next, ok, err := peekFrame(r, off, min(size-off, peekLen), size); err != nil || ok {
		return next, err
	}
	next, _, err := peekFrame(r, off, size-off, size)
	return next, err
}

// peekFrame is nextFrameAt from n bytes at off; ok says whether they told.
func peekFrame(r io.ReaderAt, off, n, size int64) (next []byte, ok bool, err error) {
	at := off
	// The next frame is most often small: a small buffer, grown only for a long one.
	err = eachLineBuf(io.NewSectionReader(r, off, n), 4<<10, func(line []byte, _ int) bool {
		at += int64(len(line))
		content := bytes.TrimSuffix(line, []byte("\n"))
		if len(content) == len(line) && at < size {
			// The line goes on past the n bytes: its start may do.
			if isFrameLine(content) {
				next, ok = lookaheadPrefix(content)
			}
			return false
		}
		if len(bytes.TrimSpace(line)) == 0 {
			return true
		}
		if isFrameLine(content) {
			next, ok = Lookahead(content), true
			return false
		}
		return true
	})
	if err == nil && !ok && at >= size {
		ok = true // no frame follows
	}
	return next, ok, err
}
