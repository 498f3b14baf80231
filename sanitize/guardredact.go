package sanitize

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tidwall/gjson"
)

// RedactedError says the guard found secrets the sanitizer had left in a recording
// and redacted them in place: the recording was published without them. It wraps
// ErrLeak, so a caller can tell "the guard had to redact" (exit status 3) from a
// clean run; a *LeakError instead means something could not be redacted.
type RedactedError struct {
	File  string
	Leaks []Leak
}

func (e *RedactedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "leak guard: redacted %d secret-shaped value(s) the sanitizer had left in %s (published without them):", len(e.Leaks), e.File)
	for _, l := range e.Leaks {
		b.WriteString("\n  ")
		b.WriteString(l.String())
	}
	return b.String()
}

func (e *RedactedError) Unwrap() error { return ErrLeak }

// guardSanitizer is what the guard runs over a finished file: the same rules and
// known secrets as z (its placeholders too), no path maps, and delta streams of its
// own.
func (z *Sanitizer) guardSanitizer() *Sanitizer {
	g := &Sanitizer{
		key: z.key, salted: z.salted, secrets: z.secrets, needles: z.needles, guards: z.guards,
		edges: z.edges, allow: z.allow, gitleaks: z.gitleaks,
		secretQuestions: map[string]map[string]bool{}, openEdges: map[string]string{}, streams: map[string]streamState{},
	}
	// The prefilters are built once per Sanitizer; each guard run has its own state.
	z.guardOnce.Do(func() {
		g.buildPrefilters()
		z.guardSan, z.guardGuard = g.sanPre, g.guardPre
	})
	g.sanPre, g.guardPre = z.guardSan, z.guardGuard
	return g
}

// GuardRedact is the leak guard before publishing: it runs the sanitizer's own
// detectors over every line of the finished file at path (a recording: deltas are
// joined per stream as when recording), replaces whatever they find in place with
// the same placeholders, and scans the result again. It returns what it redacted,
// each located by line, seq and pointer with a masked preview. Whatever the second
// scan still finds could not be redacted: it is returned as a *LeakError, and the
// file must not be published.
func (z *Sanitizer) GuardRedact(path string) ([]Leak, error) {
	if clean, err := z.nothingToRedact(path); err != nil {
		return nil, fmt.Errorf("leak guard: %s: %w", path, err)
	} else if clean {
		// The usual case: nothing to redact, so the file is scanned as it streams
		// and never held in memory whole.
		return nil, z.scanFile(path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("leak guard: %w", err)
	}
	out, redacted, leaks, err := z.guardData(data)
	if err != nil {
		return nil, fmt.Errorf("leak guard: %s: %w", path, err)
	}
	if len(redacted) > 0 {
		fi, err := os.Stat(path)
		if err != nil {
			return redacted, fmt.Errorf("leak guard: %w", err)
		}
		if err := os.WriteFile(path, out, fi.Mode().Perm()); err != nil {
			return redacted, fmt.Errorf("leak guard: rewriting %s: %w", path, err)
		}
	}
	if len(leaks) > 0 {
		return redacted, &LeakError{File: path, Leaks: leaks}
	}
	return redacted, nil
}

// guardData runs the guard on a file's content: the content with every finding
// redacted, the findings redacted, and what a scan still finds in the result.
func (z *Sanitizer) guardData(data []byte) (out []byte, redacted, leaks []Leak, err error) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	g := z.guardSanitizer()
	var buf bytes.Buffer
	buf.Grow(len(data))
	for i, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			buf.Write(line)
			continue
		}
		content := bytes.TrimSuffix(line, []byte("\n"))
		isJSON := gjson.ValidBytes(content)
		var o []byte
		var reds []Redaction
		if _, _, _, ok := deltaRaw(content); ok && isJSON {
			o, reds = g.FrameFollowedBy(line, true, nextFrame(lines[i+1:]))
		} else {
			o, reds = g.frameWith(line, content, func() bool { return isJSON }, nil)
		}
		if len(reds) > 0 {
			seq := int64(0)
			if isJSON {
				seq = gjson.GetBytes(content, "seq").Int()
			}
			for _, r := range reds {
				redacted = append(redacted, Leak{Rule: r.Rule, Line: i + 1, Seq: seq, Pointer: r.Pointer, Preview: r.preview})
			}
		}
		buf.Write(o)
	}
	if len(redacted) == 0 {
		leaks, err := z.Scan(bytes.NewReader(data))
		return data, nil, leaks, err
	}
	leaks, err = z.Scan(bytes.NewReader(buf.Bytes()))
	return buf.Bytes(), redacted, leaks, err
}

// nextFrame is the next line of a recording that is a frame (annotations between
// frames are skipped), without its newline, or nil.
func nextFrame(lines [][]byte) []byte {
	for _, l := range lines {
		if l = bytes.TrimSuffix(l, []byte("\n")); isFrameLine(l) {
			return l
		}
	}
	return nil
}

// nothingToRedact streams the file at path through the detectors guardData runs,
// line by line (a delta with the next frame, as guardData does), and reports
// whether they find nothing: then the redacting pass, which holds the file in
// memory, is not needed. A delta's next frame is read ahead from the file and only
// what the sanitizer reads of it is kept (Lookahead): no line is copied.
func (z *Sanitizer) nothingToRedact(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	g := z.guardSanitizer()
	found := false
	var off int64 // where the line after the current one begins
	var peekErr error
	err = eachLine(f, func(line []byte, _ int) bool {
		off += int64(len(line))
		if len(bytes.TrimSpace(line)) == 0 {
			return true
		}
		content := bytes.TrimSuffix(line, []byte("\n"))
		isJSON := gjson.ValidBytes(content)
		var reds []Redaction
		if _, _, _, ok := deltaRaw(content); ok && isJSON {
			var next []byte
			if next, peekErr = nextFrameAt(f, off, fi.Size()); peekErr != nil {
				return false
			}
			_, reds = g.FrameFollowedBy(line, true, next)
		} else {
			_, reds = g.frameWith(line, content, func() bool { return isJSON }, nil)
		}
		found = len(reds) > 0
		return !found
	})
	if err == nil {
		err = peekErr
	}
	return !found, err
}

// peekLen bounds what is read ahead of the frame after a delta: the sanitizer reads
// only its start, so a huge next frame is not held besides the delta.
const peekLen = 1 << 20

// nextFrameAt reads f (size bytes long) from off to the first frame line (blank
// lines and annotations are skipped) and returns what the sanitizer reads of it
// (Lookahead), or nil when no frame follows. It reads peekLen bytes, and on only
// when they do not tell.
func nextFrameAt(f *os.File, off, size int64) ([]byte, error) {
	if next, ok, err := peekFrame(f, off, min(size-off, peekLen), size); err != nil || ok {
		return next, err
	}
	next, _, err := peekFrame(f, off, size-off, size)
	return next, err
}

// peekFrame is nextFrameAt from n bytes at off; ok says whether they told.
func peekFrame(f *os.File, off, n, size int64) (next []byte, ok bool, err error) {
	at := off
	err = eachLine(io.NewSectionReader(f, off, n), func(line []byte, _ int) bool {
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

// scanFile is Guard's second scan when nothing was redacted: the file as it streams.
func (z *Sanitizer) scanFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("leak guard: %w", err)
	}
	defer f.Close()
	leaks, err := z.Scan(f)
	if err != nil {
		return fmt.Errorf("leak guard: %s: %w", path, err)
	}
	if len(leaks) > 0 {
		return &LeakError{File: path, Leaks: leaks}
	}
	return nil
}

// isFrameLine says whether a recording line is a frame (or not a typed entry at all).
func isFrameLine(l []byte) bool {
	t := gjson.GetBytes(l, "type")
	return t.Str == "frame" || !t.Exists()
}
