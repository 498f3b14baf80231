package record_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/wire"
)

// fullDisk is a file on a disk with room for limit bytes: a write past it writes what
// fits and fails with ENOSPC, as write(2) does. It is a fake because a real file
// system cannot be made to fill up at every chosen byte of a session (the test on a
// real small file system is TestRecordOnFullFileSystem in cmd/codexrec).
type fullDisk struct {
	f     *os.File
	limit int64
}

func (d *fullDisk) Write(p []byte) (int, error) {
	pos, err := d.f.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, err
	}
	room := max(d.limit-pos, 0)
	if int64(len(p)) <= room {
		return d.f.Write(p)
	}
	n, _ := d.f.Write(p[:room])
	return n, &fs.PathError{Op: "write", Path: d.f.Name(), Err: syscall.ENOSPC}
}

// diskFullSession records one session (deltas held back for the sanitizer, findings,
// a frame past the writer's buffer) onto a disk of limit bytes (0: unlimited).
func diskFullSession(t *testing.T, dir string, limit int64) (*recorder.Writer, error) {
	t.Helper()
	z, err := sanitize.New(sanitize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s.jsonl")
	s := &record.Session{Validator: &schema.SessionValidator{Classified: true}, Sanitizer: z, Guard: z}
	opt := recorder.Options{}
	if limit > 0 {
		opt.WrapFile = func(w io.Writer) io.Writer { return &fullDisk{f: w.(*os.File), limit: limit} }
	}
	if err := s.Create(path, recorder.Header{Command: []string{"echo"}}, opt); err != nil {
		return nil, err
	}
	// The frames are handed to the session one by one, as the proxy's tap does, so
	// that every run writes the same entries in the same order.
	lines := []struct {
		dir  wire.Direction
		line string
	}{
		{wire.ClientToServer, `{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t","version":"1"}}}`},
		{wire.ServerToClient, `{"id":1,"result":{"userAgent":"codex_cli_rs/0.171.0 (test)"}}`},
		{wire.Stderr, `a log line`},
	}
	for i := range 12 {
		lines = append(lines, struct {
			dir  wire.Direction
			line string
		}{wire.ServerToClient, fmt.Sprintf(`{"method":"item/agentMessage/delta","params":{"threadId":"t","turnId":"u","itemId":"i","delta":"chunk %d of the answer "}}`, i)})
		if i == 5 {
			lines = append(lines, struct {
				dir  wire.Direction
				line string
			}{wire.ServerToClient, `{"method":"no/such/method","params":{"big":"` + strings.Repeat("x", 200<<10) + `"}}`})
		}
	}
	var pairer wire.Pairer
	for i, l := range lines {
		f := &wire.Frame{Seq: int64(i + 1), Dir: l.dir, Line: []byte(l.line + "\n")}
		if l.dir != wire.Stderr {
			f.Msg = wire.Classify(f.Line)
			pairer.Observe(l.dir, &f.Msg)
		}
		if err := s.Frame(f); err != nil && s.Writer.Err() == nil {
			t.Fatalf("frame %d: %v", i+1, err)
		}
	}
	_, err = s.Finish(recorder.Trailer{Ended: recorder.EndClientEOF})
	return s.Writer, err
}

// TestDiskFullAtEveryEntry: a disk that fills up in the middle of any entry of a
// session leaves a recording under the target name holding every entry written whole
// before it, closed with a trailer when one fits, and an error that names that file
// (not the temporary one) and wraps recorder.ErrCutShort.
func TestDiskFullAtEveryEntry(t *testing.T) {
	refDir := t.TempDir()
	if _, err := diskFullSession(t, refDir, 0); err != nil {
		t.Fatal(err)
	}
	ref, err := os.ReadFile(filepath.Join(refDir, "s.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var ends []int64
	for i, b := range ref {
		if b == '\n' {
			ends = append(ends, int64(i+1))
		}
	}
	if len(ends) < 20 {
		t.Fatalf("the reference session has %d lines: too few to sweep", len(ends))
	}
	// Entry k (0 is the header) is cut in its middle; the last is the trailer.
	for k := 1; k < len(ends); k++ {
		limit := ends[k-1] + (ends[k]-ends[k-1])/2
		dir := t.TempDir()
		w, err := diskFullSession(t, dir, limit)
		if !errors.Is(err, recorder.ErrCutShort) {
			t.Errorf("entry %d (disk of %d bytes): err = %v, want ErrCutShort", k, limit, err)
			continue
		}
		where := w.PublishedPath()
		if where != filepath.Join(dir, "s.jsonl") || !strings.Contains(err.Error(), where) || strings.Contains(err.Error(), ".tmp") {
			t.Errorf("entry %d: published at %q; the error names another file or the temporary one: %v", k, where, err)
		}
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 {
			t.Errorf("entry %d: the directory holds %d files, want the recording alone", k, len(ents))
		}
		if fi, err := os.Stat(where); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("entry %d: %v, %v: want a 0600 recording", k, fi, err)
			continue
		}
		got, _ := os.ReadFile(where)
		rec, err := recorder.ReadFile(where)
		if err != nil {
			t.Errorf("entry %d: the recording is unreadable: %v", k, err)
			continue
		}
		// Every entry the disk had room for is there, byte for byte as in the
		// reference, but for the trailer.
		whole := ends[k-1]
		body := got
		if rec.Trailer != nil {
			body = got[:bytes.LastIndexByte(got[:len(got)-1], '\n')+1]
			if rec.Trailer.Ended != recorder.EndError || len(rec.Problems) != 0 {
				t.Errorf("entry %d: trailer %+v, problems %v", k, rec.Trailer, rec.Problems)
			}
		}
		if !bytes.Equal(stripTimes(body), stripTimes(ref[:whole])) {
			t.Errorf("entry %d: kept %d lines, want the %d whole entries before it", k, bytes.Count(body, []byte("\n")), k)
		}
		if rec.Trailer == nil && int64(len(got)) < limit-300 {
			t.Errorf("entry %d: no trailer though %d bytes were free", k, limit-int64(len(got)))
		}
	}
}

// stripTimes blanks what differs between two runs of one session: times.
func stripTimes(b []byte) []byte {
	var out []byte
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if i := bytes.Index(line, []byte(`"t":`)); i >= 0 {
			j := i + 4
			for j < len(line) && (line[j] >= '0' && line[j] <= '9' || line[j] == '.') {
				j++
			}
			line = append(append(append([]byte(nil), line[:i]...), `"t":0`...), line[j:]...)
		}
		if i := bytes.Index(line, []byte(`"started":"`)); i >= 0 {
			j := i + 11 + bytes.IndexByte(line[i+11:], '"')
			line = append(append(append([]byte(nil), line[:i]...), `"started":""`...), line[j+1:]...)
		}
		out = append(out, line...)
	}
	return out
}
