package recorder

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Orphans lists the temporary files of recordings for path whose writer is gone
// (a proxy killed before it could publish): they are left for Recover. Where the
// platform cannot tell a live writer from a dead one, it lists none.
func Orphans(path string) []string {
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp"))
	target, _ := os.Stat(path)
	var out []string
	for _, m := range matches {
		if alive, known, err := writerAlive(m); err == nil && known && !alive {
			if fi, err := os.Stat(m); err == nil && target != nil && os.SameFile(fi, target) {
				continue // published; only the temporary name was left (Recover removes it)
			}
			out = append(out, m)
		}
	}
	return out
}

// WriterGone reports whether the recording being written at tmp has lost its writer
// (the process was killed); known is false where the platform cannot tell.
func WriterGone(tmp string) (gone, known bool) {
	alive, known, err := writerAlive(tmp)
	if err != nil {
		return false, false
	}
	return !alive, known
}

// TargetOf is the recording a temporary file ".NAME.RANDOM.tmp" was to be published
// as, NAME beside it; "" when tmp is not named that way.
func TargetOf(tmp string) string {
	dir, base := filepath.Split(tmp)
	if !strings.HasPrefix(base, ".") || !strings.HasSuffix(base, ".tmp") {
		return ""
	}
	name := strings.TrimSuffix(strings.TrimPrefix(base, "."), ".tmp")
	i := strings.LastIndexByte(name, '.')
	if i <= 0 {
		return ""
	}
	return filepath.Join(dir, name[:i])
}

// RecoverOptions configure Recover. The zero value publishes without replacing an
// existing recording and runs nothing before publishing.
type RecoverOptions struct {
	Force bool // replace an existing recording at the target
	// BeforePublish runs on the completed file before it is published, as
	// Writer.BeforePublish does (the leak guard); an error leaves the file where it is.
	BeforePublish func(path string) error
}

// Recover completes the recording a killed proxy left in the temporary file tmp
// and publishes it at path: a last line cut short is removed, a trailer with ended
// "proxy-killed" counting what the file holds is appended (unless the file already
// has one), BeforePublish runs, and the file is published as Writer.Close does (see
// KeptElsewhereError). It refuses a file whose writer still runs (ErrInProgress).
// It returns where the recording is and its trailer.
func Recover(tmp, path string, opt RecoverOptions) (string, *Trailer, error) {
	if gone, known := WriterGone(tmp); known && !gone {
		return "", nil, fmt.Errorf("recover %s: %w: the process writing it is still running", tmp, ErrInProgress)
	}
	if fi, err := os.Stat(tmp); err != nil {
		return "", nil, fmt.Errorf("recover: %w", err)
	} else if pi, err := os.Stat(path); err == nil && os.SameFile(fi, pi) {
		// Killed between publishing and removing the temporary name.
		os.Remove(tmp)
		return path, nil, nil
	}
	f, err := os.OpenFile(tmp, os.O_RDWR, 0)
	if err != nil {
		return "", nil, fmt.Errorf("recover: %w", err)
	}
	defer f.Close()
	rd, err := NewReader(f, tmp)
	if err != nil {
		return "", nil, fmt.Errorf("recover: %w", err)
	}
	var last Entry
	for e, err := range rd.Entries() {
		if err != nil {
			return "", nil, fmt.Errorf("recover: %w", err)
		}
		last = e
	}
	t := rd.Trailer()
	if t == nil {
		if err := f.Truncate(rd.wholeOff); err != nil {
			return "", nil, fmt.Errorf("recover %s: %w", tmp, err)
		}
		if _, err := f.Seek(rd.wholeOff, io.SeekStart); err != nil {
			return "", nil, fmt.Errorf("recover %s: %w", tmp, err)
		}
		w := &Writer{f: f, path: path}
		w.lb.done = rd.seen
		t = &Trailer{Ended: EndProxyKilled, ExitCode: -1, Duration: last.Time.Seconds(),
			Error: "the proxy was killed before it wrote a trailer; completed by recovery"}
		if rd.truncated {
			t.Error += " (its last line, cut short, was removed)"
		}
		if err := w.writeTrailer(*t, true); err != nil {
			return "", nil, fmt.Errorf("recover %s: %w", tmp, err)
		}
		if err := f.Sync(); err != nil {
			return "", nil, fmt.Errorf("recover %s: %w", tmp, err)
		}
		t.Frames = map[string]int64{"c2s": rd.seen.frames[1], "s2c": rd.seen.frames[2], "stderr": rd.seen.frames[3]}
		t.Findings, t.Undelivered = rd.seen.findings, rd.seen.undelivered
	}
	if opt.BeforePublish != nil {
		if err := opt.BeforePublish(tmp); err != nil {
			return tmp, t, fmt.Errorf("recover %s: %w", tmp, err)
		}
	}
	before, _ := os.Lstat(path) // recovery replaces, with Force, what is there now
	where, err := publish(tmp, path, opt.Force, before)
	return where, t, err
}
