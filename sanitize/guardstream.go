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
	err := z.guardLines(r, size, nil, func(_ int, _, _ []byte, reds []Redaction) bool {
		found = len(reds) > 0
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
