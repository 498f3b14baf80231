package sanitize

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	writeLeaks(&b, e.Leaks)
	return b.String()
}

func (e *RedactedError) Unwrap() error { return ErrLeak }

// guardSanitizer is what the guard runs over a finished file: the same rules and
// known secrets as z (its placeholders too), no path maps, and delta streams of its
// own.
func (z *Sanitizer) guardSanitizer() *Sanitizer {
	g := &Sanitizer{
		key: z.key, salted: z.salted, secrets: z.secrets, needles: z.needles, guards: z.guards, acrossForms: z.acrossForms,
		edges: z.edges, allow: z.allow, gitleaks: z.gitleaks, textFrames: true,
		secretQuestions: map[string]map[string]bool{}, openEdges: map[string]string{}, streams: map[string]streamState{},
	}
	// The prefilters are built once per Sanitizer, when first needed (prefilters);
	// each guard run has its own state.
	g.preFrom = z
	return g
}

// GuardRedact is the leak guard before publishing: it runs the sanitizer's own
// detectors over every line of the finished file at path (a recording: deltas are
// joined per stream as when recording), replaces whatever they find in place with
// the same placeholders, and scans the result again. It returns what it redacted,
// each located by line, seq and pointer with a masked preview. Whatever the second
// scan still finds could not be redacted: it is returned as a *LeakError, and the
// file must not be published. The file is read line by line, never whole; it is
// rewritten in place (the same file, which a writer may hold locked) only when
// something was redacted.
func (z *Sanitizer) GuardRedact(path string) ([]Leak, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("leak guard: %w", err)
	}
	defer f.Close()
	redacted, leaks, err := z.guardFile(f, true)
	if err != nil {
		return redacted, fmt.Errorf("leak guard: %s: %w", path, err)
	}
	if len(leaks) > 0 {
		return redacted, &LeakError{File: path, Leaks: leaks}
	}
	return redacted, nil
}

// guardFile runs the guard over f: the detecting pass, and when it finds something
// the redacting passes (see guardPasses), whose lines are spooled to a temporary
// file beside f and, when rewrite is set, copied back over f's file (opened for
// writing only then: a clean file may be read-only). It returns what was redacted
// and what could not be.
func (z *Sanitizer) guardFile(f *os.File, rewrite bool) (redacted, leaks []Leak, err error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	var spools []*fileSpool
	defer func() {
		for _, s := range spools {
			s.f.Close()
			os.Remove(s.f.Name())
		}
	}()
	newSpool := func() (spool, error) {
		// Beside the recording: on its file system, not in a /tmp that may be memory.
		t, err := os.CreateTemp(filepath.Dir(f.Name()), "."+filepath.Base(f.Name())+".guard-*")
		if err != nil {
			return nil, err
		}
		s := &fileSpool{f: t, w: bufio.NewWriterSize(t, 1<<20)}
		spools = append(spools, s)
		return s, nil
	}
	out, n, redacted, leaks, err := z.guardPasses(f, fi.Size(), newSpool)
	if err != nil {
		return redacted, leaks, err
	}
	if len(redacted) > 0 && rewrite {
		if err := copyOver(f.Name(), out, n); err != nil {
			return redacted, leaks, fmt.Errorf("rewriting: %w", err)
		}
	}
	return redacted, leaks, nil
}

// A spool receives a redacting pass's lines and is read by the next pass.
type spool interface {
	io.Writer
	io.ReaderAt
	// done flushes what was written and returns its size.
	done() (int64, error)
}

type fileSpool struct {
	f *os.File
	w *bufio.Writer
	n int64
}

func (s *fileSpool) Write(b []byte) (int, error) {
	n, err := s.w.Write(b)
	s.n += int64(n)
	return n, err
}
func (s *fileSpool) ReadAt(b []byte, off int64) (int, error) { return s.f.ReadAt(b, off) }
func (s *fileSpool) done() (int64, error)                    { return s.n, s.w.Flush() }

type memSpool struct{ bytes.Buffer }

func (s *memSpool) ReadAt(b []byte, off int64) (int, error) {
	return bytes.NewReader(s.Bytes()).ReadAt(b, off)
}
func (s *memSpool) done() (int64, error) { return int64(s.Len()), nil }

// guardPasses is the guard on r (size bytes). The detecting pass runs the
// sanitizer's detectors over every line, the view the sanitizer had (each string
// decoded, deltas joined per stream with the next frame's start, the text stream
// of stderr lines). Only when it finds something: the redacting pass writes every
// line with its findings replaced at their spans; a check pass runs the same
// detectors over the result; a line in which they still find something (a finding
// that could not be located at a span of its own) has every string value replaced
// whole, reported as such, and the result is checked once more. What that last
// check finds is returned as leaks (the caller must not publish); out is the final
// content (r itself when nothing was redacted).
func (z *Sanitizer) guardPasses(r io.ReaderAt, size int64, newSpool func() (spool, error)) (out io.ReaderAt, n int64, redacted, leaks []Leak, err error) {
	if clean, err := z.nothingToRedact(r, size); err != nil || clean {
		return r, size, nil, nil, err
	}
	sp, err := newSpool()
	if err != nil {
		return r, size, nil, nil, err
	}
	if redacted, err = z.redactLines(r, size, sp); err != nil {
		return r, size, redacted, nil, err
	}
	if n, err = sp.done(); err != nil {
		return r, size, redacted, nil, err
	}
	out = sp
	left, err := z.findingLines(out, n)
	if err != nil || len(left) == 0 {
		return out, n, redacted, nil, err
	}
	sp2, err := newSpool()
	if err != nil {
		return out, n, redacted, nil, err
	}
	whole, err := z.redactWhole(out, n, left, sp2)
	redacted = append(redacted, whole...)
	if err != nil {
		return out, n, redacted, nil, err
	}
	if n, err = sp2.done(); err != nil {
		return out, n, redacted, nil, err
	}
	out = sp2
	still, err := z.findingLines(out, n)
	for _, ls := range still {
		leaks = append(leaks, ls...)
	}
	return out, n, redacted, leaks, err
}

// copyOver replaces the content of the file at path with the first n bytes of src,
// in place: the file stays the same (its mode, and the lock its writer holds).
func copyOver(path string, src io.ReaderAt, n int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, io.NewSectionReader(src, 0, n)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// guardData runs the guard on a file's content: the content with every finding
// redacted, the findings redacted, and what could not be.
func (z *Sanitizer) guardData(data []byte) (out []byte, redacted, leaks []Leak, err error) {
	res, n, redacted, leaks, err := z.guardPasses(bytes.NewReader(data), int64(len(data)), func() (spool, error) { return &memSpool{}, nil })
	if err != nil {
		return nil, redacted, leaks, err
	}
	if len(redacted) == 0 {
		return data, nil, leaks, nil
	}
	out = make([]byte, n)
	_, err = res.ReadAt(out, 0)
	if err == io.EOF {
		err = nil
	}
	return out, redacted, leaks, err
}

// isFrameLine says whether a recording line is a frame (or not a typed entry at all).
func isFrameLine(l []byte) bool {
	t := gjson.GetBytes(l, "type")
	return t.Str == "frame" || !t.Exists()
}
