package check_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

var fixturesDir = flag.String("fixtures", filepath.Join("..", "fixtures", "hermetic"),
	"directory of committed hermetic recordings, <version>/<scenario>.jsonl")

// fixture reads a committed hermetic recording of the newest pinned Codex version.
func fixture(t testing.TB, scenario string) *recorder.Recording {
	t.Helper()
	path := filepath.Join(*fixturesDir, codexbin.Newest, scenario+".jsonl")
	rec, err := recorder.ReadFile(path)
	if err != nil {
		t.Fatalf("fixture %s/%s: %v (fixtures are committed by the capture work, make fixtures)", codexbin.Newest, scenario, err)
	}
	return rec
}

// mutable is a real recording being altered by a test: the faults the real binary
// cannot be made to produce are written into a copy of what it did produce.
type mutable struct {
	t   testing.TB
	rec *recorder.Recording
	seq int64 // the last seq handed out
}

func mutate(t testing.TB, rec *recorder.Recording) *mutable {
	m := &mutable{t: t, rec: rec}
	for _, e := range rec.Entries {
		m.seq = max(m.seq, e.Seq)
	}
	return m
}

// find returns the index of the n-th (0-based) frame travelling in dir whose kind and
// method match (method "" matches any).
func (m *mutable) find(dir wire.Direction, kind wire.Kind, method string, n int) int {
	m.t.Helper()
	for i, e := range m.rec.Entries {
		if e.Type == recorder.TypeFrame && e.Dir == dir && e.Msg.Kind == kind && (method == "" || e.Msg.Method == method) {
			if n == 0 {
				return i
			}
			n--
		}
	}
	m.t.Fatalf("fixture has no %s %s %s", dir, kind, method)
	return -1
}

// findItem returns the index of the item notification (item/started, item/completed)
// about item id.
func (m *mutable) findItem(method, id string) int {
	m.t.Helper()
	for i, e := range m.rec.Entries {
		if e.Type == recorder.TypeFrame && e.Msg.Method == method && gjson.GetBytes(e.JSON(), "params.item.id").Str == id {
			return i
		}
	}
	m.t.Fatalf("fixture has no %s for item %s", method, id)
	return -1
}

func (m *mutable) seqAt(i int) int64 { return m.rec.Entries[i].Seq }

// frame builds a new frame with a fresh seq, classified as the proxy would.
func (m *mutable) frame(dir wire.Direction, line string) recorder.Entry {
	m.seq++
	b := []byte(line + "\n")
	msg := wire.Message{}
	if dir != wire.Stderr {
		msg = wire.Classify(b)
	}
	return recorder.Entry{Type: recorder.TypeFrame, Seq: m.seq, Dir: dir, Line: b, Msg: msg}
}

// clone copies the frame at i under a fresh seq.
func (m *mutable) clone(i int) recorder.Entry {
	e := m.rec.Entries[i]
	m.seq++
	e.Seq = m.seq
	e.Line = bytes.Clone(e.Line)
	return e
}

func (m *mutable) insert(at int, es ...recorder.Entry) {
	m.rec.Entries = append(m.rec.Entries[:at], append(es, m.rec.Entries[at:]...)...)
}

func (m *mutable) remove(i int) recorder.Entry {
	e := m.rec.Entries[i]
	m.rec.Entries = append(m.rec.Entries[:i], m.rec.Entries[i+1:]...)
	return e
}

// move takes the frame at from and puts it just after the frame now at after.
func (m *mutable) move(from, after int) {
	e := m.remove(from)
	if from < after {
		after--
	}
	m.insert(after+1, e)
}

// edit rewrites the frame's message through a decoded copy (the bytes change; the
// checker reads fields, not formatting).
func (m *mutable) edit(i int, f func(msg map[string]any)) {
	m.t.Helper()
	e := &m.rec.Entries[i]
	var msg map[string]any
	if err := json.Unmarshal(e.JSON(), &msg); err != nil {
		m.t.Fatal(err)
	}
	f(msg)
	b, err := json.Marshal(msg)
	if err != nil {
		m.t.Fatal(err)
	}
	e.Line = append(b, '\n')
}

// replace rewrites the first occurrence of old in the frame's bytes, for what a
// decoded copy cannot hold (a lone surrogate escape).
func (m *mutable) replace(i int, old, new string) {
	m.t.Helper()
	e := &m.rec.Entries[i]
	if !bytes.Contains(e.Line, []byte(old)) {
		m.t.Fatalf("frame %d has no %q", e.Seq, old)
	}
	e.Line = bytes.Replace(e.Line, []byte(old), []byte(new), 1)
}

// write publishes the recording with recorder.Create in a temporary directory.
func (m *mutable) write() string {
	m.t.Helper()
	path := filepath.Join(m.t.TempDir(), "mutated.jsonl")
	if err := writeRecording(path, m.rec); err != nil {
		m.t.Fatal(err)
	}
	return path
}

func writeRecording(path string, rec *recorder.Recording) error {
	w, err := recorder.Create(path, rec.Header, recorder.Options{Force: true})
	if err != nil {
		return err
	}
	for _, e := range rec.Entries {
		if e.Type == recorder.TypeFrame {
			err = w.WriteFrame(&wire.Frame{Seq: e.Seq, Time: e.Time, Dir: e.Dir, Line: e.Line, Msg: e.Msg})
		} else {
			err = w.WriteEntry(e)
		}
		if err != nil {
			w.Abort()
			return err
		}
	}
	t := recorder.Trailer{Ended: recorder.EndClientEOF}
	if rec.Trailer != nil {
		t = *rec.Trailer
	}
	return w.Close(t)
}

// cutTrailer removes the last line (the trailer) of the recording at path.
func cutTrailer(t testing.TB, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.TrimSuffix(b, []byte("\n"))
	last := bytes.LastIndexByte(b, '\n')
	if !strings.Contains(string(b[last+1:]), `"type":"trailer"`) {
		t.Fatalf("%s: last line is not the trailer", path)
	}
	if err := os.WriteFile(path, b[:last+1], 0o600); err != nil {
		t.Fatal(err)
	}
}
