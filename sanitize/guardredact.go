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
		key: z.key, salted: z.salted, secrets: z.secrets, needles: z.needles, guards: z.guards,
		edges: z.edges, allow: z.allow, gitleaks: z.gitleaks,
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
// the redacting pass, whose lines are spooled to a temporary file and, when rewrite
// is set, copied back over f's file (opened for writing only then: a clean file may
// be read-only). It returns what was redacted and what a scan of the result still
// finds.
func (z *Sanitizer) guardFile(f *os.File, rewrite bool) (redacted, leaks []Leak, err error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := fi.Size()
	if clean, err := z.nothingToRedact(f, size); err != nil || clean {
		if err != nil {
			return nil, nil, err
		}
		// The usual case: nothing to redact, and the file is scanned as it streams.
		leaks, err := z.Scan(io.NewSectionReader(f, 0, size))
		return nil, leaks, err
	}
	// Beside the recording: on its file system, not in a /tmp that may be memory.
	spool, err := os.CreateTemp(filepath.Dir(f.Name()), "."+filepath.Base(f.Name())+".guard-*")
	if err != nil {
		return nil, nil, err
	}
	defer os.Remove(spool.Name())
	defer spool.Close()
	w := bufio.NewWriterSize(spool, 1<<20)
	if redacted, err = z.redactLines(f, size, w); err == nil {
		err = w.Flush()
	}
	if err != nil {
		return redacted, nil, err
	}
	out, err := spool.Seek(0, io.SeekCurrent)
	if err != nil {
		return redacted, nil, err
	}
	if len(redacted) > 0 && rewrite {
		if err := copyOver(f.Name(), spool, out); err != nil {
			return redacted, nil, fmt.Errorf("rewriting: %w", err)
		}
	}
	if len(redacted) == 0 {
		leaks, err = z.Scan(io.NewSectionReader(f, 0, size))
	} else {
		leaks, err = z.Scan(io.NewSectionReader(spool, 0, out))
	}
	return redacted, leaks, err
}

// copyOver replaces the content of the file at path with the first n bytes of src,
// in place: the file stays the same (its mode, and the lock its writer holds).
func copyOver(path string, src *os.File, n int64) error {
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
// redacted, the findings redacted, and what a scan still finds in the result.
func (z *Sanitizer) guardData(data []byte) (out []byte, redacted, leaks []Leak, err error) {
	var buf bytes.Buffer
	if redacted, err = z.redactLines(bytes.NewReader(data), int64(len(data)), &buf); err != nil {
		return nil, nil, nil, err
	}
	if len(redacted) == 0 {
		leaks, err := z.Scan(bytes.NewReader(data))
		return data, nil, leaks, err
	}
	leaks, err = z.Scan(bytes.NewReader(buf.Bytes()))
	return buf.Bytes(), redacted, leaks, err
}

// isFrameLine says whether a recording line is a frame (or not a typed entry at all).
func isFrameLine(l []byte) bool {
	t := gjson.GetBytes(l, "type")
	return t.Str == "frame" || !t.Exists()
}
