package recorder_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata")

// frames covers every way a line can cross the proxy.
var frames = []struct {
	dir  wire.Direction
	line string
}{
	{wire.ClientToServer, `{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t"}}}` + "\n"},
	{wire.ClientToServer, `{"method":"initialized"}` + "\n"},
	{wire.Stderr, "WARNING: proceeding \x1b[31mred\x1b[0m \"quoted\"\n"},
	{wire.ServerToClient, `{"id":1,"result":{"userAgent":"t/0.163.0 (Debian)"}}` + "\n"},
	{wire.ServerToClient, `{"id":"1","result":{}}` + "\n"},
	{wire.ServerToClient, "not json at all\n"},
	{wire.ServerToClient, "\n"},
	{wire.ServerToClient, "\xff\xfe binary\n"},
	{wire.ServerToClient, `[{"id":1,"method":"batch"}]` + "\n"},
	{wire.ServerToClient, `  {"method":"padded"}` + "\r\n"},
	{wire.ClientToServer, `{"id":0,"result":{"decision":"accept"}}` + "\n"},
	{wire.Stderr, "\xc3\x28 invalid utf8 on stderr\n"},
	{wire.ServerToClient, `{"method":"last","params":{"u":"\u00e9\u2028"}}`},
}

func writeRecording(t *testing.T, path string) {
	t.Helper()
	start := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	w, err := recorder.Create(path, recorder.Header{Codexrec: "test", Command: []string{"codex", "app-server"}},
		recorder.Options{Now: func() time.Time { return start }})
	if err != nil {
		t.Fatal(err)
	}
	var pairer wire.Pairer
	for i, f := range frames {
		fr := &wire.Frame{Seq: int64(i + 1), Time: time.Duration(i) * time.Millisecond, Dir: f.dir, Line: []byte(f.line)}
		if f.dir != wire.Stderr {
			fr.Msg = wire.Classify(fr.Line)
			pairer.Observe(f.dir, &fr.Msg)
		}
		if err := w.WriteFrame(fr); err != nil {
			t.Fatal(err)
		}
		if i == 3 {
			if err := w.UpdateHeader(fr.Time, recorder.Header{CodexVersion: "0.163.0"}); err != nil {
				t.Fatal(err)
			}
			if err := w.WriteEntry(recorder.Entry{Type: recorder.TypeFinding, Seq: 4, Dir: f.dir, Rule: "undeclared-field",
				Severity: "warning", Pointer: "/result/userAgent", Reason: "not declared"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.WriteEntry(recorder.Entry{Type: recorder.TypeExit, Segment: 1, ExitCode: 0}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(recorder.Trailer{Ended: recorder.EndClientEOF}); err != nil {
		t.Fatal(err)
	}
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	writeRecording(t, path)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	rec, err := recorder.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Header.CodexVersion != "0.163.0" || rec.Header.Format != recorder.FormatVersion || rec.Header.Codexrec != "test" {
		t.Errorf("header = %+v", rec.Header)
	}
	got := rec.Frames()
	if len(got) != len(frames) {
		t.Fatalf("read %d frames, wrote %d", len(got), len(frames))
	}
	for i, e := range got {
		if string(e.Line) != frames[i].line || e.Dir != frames[i].dir || e.Seq != int64(i+1) {
			t.Errorf("frame %d = %s %q, want %s %q", i+1, e.Dir, e.Line, frames[i].dir, frames[i].line)
		}
		if e.Time != time.Duration(i)*time.Millisecond {
			t.Errorf("frame %d time = %v", i+1, e.Time)
		}
	}
	if m := got[3].Msg; m.Kind != wire.KindResponse || m.Method != "initialize" || m.ID != "1" {
		t.Errorf("frame 4 msg = %+v", m)
	}
	if m := got[4].Msg; !m.Unpaired || m.ID != `"1"` {
		t.Errorf(`frame 5 ("1" never requested) msg = %+v`, m)
	}
	if m := got[10].Msg; m.Method != "" || !m.Unpaired {
		// The client answers id 0, which the server never requested in this recording.
		t.Errorf("frame 11 msg = %+v", m)
	}
	var findings int
	for _, e := range rec.Entries {
		if e.Type == recorder.TypeFinding {
			findings++
			if e.Seq != 4 || e.Pointer != "/result/userAgent" || e.Rule != "undeclared-field" {
				t.Errorf("finding = %+v", e)
			}
		}
	}
	if findings != 1 {
		t.Errorf("findings = %d", findings)
	}
	tr := rec.Trailer
	if tr == nil || tr.Ended != recorder.EndClientEOF || tr.Frames["s2c"] != 8 || tr.Frames["c2s"] != 3 || tr.Frames["stderr"] != 2 || tr.Findings != 1 {
		t.Errorf("trailer = %+v", tr)
	}
}

func TestGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	writeRecording(t, path)
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "format-v1.golden.jsonl")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("recording differs from %s (run go test -update if the change is intended):\n%s", golden, got)
	}
	// Every earlier format version stays readable: the golden file is read as written.
	if _, err := recorder.ReadFile(golden); err != nil {
		t.Errorf("golden file unreadable: %v", err)
	}
}

func TestCreateRefusesExisting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	if err := os.WriteFile(path, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := recorder.Create(path, recorder.Header{}, recorder.Options{}); !errors.Is(err, recorder.ErrExists) {
		t.Fatalf("Create over an existing file: err = %v, want ErrExists", err)
	}
	w, err := recorder.Create(path, recorder.Header{}, recorder.Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "keep" {
		t.Error("the existing file changed before the new recording was published")
	}
	if err := w.Close(recorder.Trailer{Ended: recorder.EndChildExit}); err != nil {
		t.Fatal(err)
	}
	if _, err := recorder.ReadFile(path); err != nil {
		t.Error(err)
	}
}

func TestBeforePublishRefusal(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rec.jsonl")
	w, err := recorder.Create(path, recorder.Header{}, recorder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	refused := errors.New("leak")
	var sawTemp bool
	w.BeforePublish = func(tmp string) error {
		_, err := os.Stat(tmp)
		sawTemp = err == nil && strings.HasPrefix(filepath.Base(tmp), ".rec.jsonl.")
		return refused
	}
	if err := w.Close(recorder.Trailer{}); !errors.Is(err, refused) {
		t.Fatalf("Close = %v, want the hook's error", err)
	}
	if !sawTemp {
		t.Error("hook did not see the finished temp file")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("files left behind: %v", ents)
	}
}

func TestReaderErrors(t *testing.T) {
	tests := []struct {
		name, in string
		want     string
		is       error
	}{
		{"empty", "", "empty file", recorder.ErrNoHeader},
		{"not a recording", `{"id":1}` + "\n", "line 1", recorder.ErrNoHeader},
		{"future format", `{"type":"header","format":99}` + "\n", "format 99", recorder.ErrFormatVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := recorder.ReadAll(strings.NewReader(tt.in), "x.jsonl")
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "x.jsonl") {
				t.Fatalf("err = %v, want it to name x.jsonl and %q", err, tt.want)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Fatalf("err = %v, want %v", err, tt.is)
			}
		})
	}
}

func TestTruncatedRecordingReads(t *testing.T) {
	in := `{"type":"header","format":1}` + "\n" + `{"type":"frame","seq":1,"t":0.1,"dir":"c2s","kind":"notification","method":"initialized","msg":{"method":"initialized"}}` + "\n"
	rec, err := recorder.ReadAll(strings.NewReader(in), "cut.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Trailer != nil || len(rec.Frames()) != 1 {
		t.Fatalf("trailer %v, frames %d", rec.Trailer, len(rec.Frames()))
	}
}

func TestSegments(t *testing.T) {
	in := `{"type":"header","format":1}
{"type":"segment","segment":1}
{"type":"frame","seq":1,"dir":"c2s","kind":"notification","msg":{"method":"a"}}
{"type":"exit","segment":1,"exitCode":0}
{"type":"segment","segment":2}
{"type":"frame","seq":2,"dir":"c2s","kind":"notification","msg":{"method":"b"}}
`
	rec, err := recorder.ReadAll(strings.NewReader(in), "seg.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	segs := rec.Segments()
	if len(segs) != 2 || len(segs[0]) != 3 || len(segs[1]) != 2 || segs[1][0].Segment != 2 {
		t.Fatalf("segments = %+v", segs)
	}
}

// A whole line that is no entry is skipped and reported with its line number; the
// entries around it are read.
func TestReaderSkipsUnreadableLines(t *testing.T) {
	frame := `{"type":"frame","seq":3,"dir":"c2s","raw":"ok"}` + "\n"
	trailer := `{"type":"trailer","ended":"client-eof","exitCode":0,"duration":1,"frames":{"c2s":1,"s2c":0,"stderr":0}}` + "\n"
	tests := []struct{ name, line, want string }{
		{"garbage line", "oops\n", "not a JSON object"},
		{"frame without body", `{"type":"frame","seq":1,"dir":"c2s"}` + "\n", "frame 1"},
		{"bad direction", `{"type":"frame","seq":1,"dir":"up","raw":""}` + "\n", `unknown direction "up"`},
	}
	for _, tt := range tests {
		for _, after := range []bool{false, true} {
			in := `{"type":"header","format":1}` + "\n" + tt.line + frame + trailer
			line := 2
			if after { // garbage after an intact trailer
				in = `{"type":"header","format":1}` + "\n" + frame + trailer + tt.line
				line = 4
			}
			rec, err := recorder.ReadAll(strings.NewReader(in), "x.jsonl")
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			if len(rec.Frames()) != 1 || rec.Trailer == nil {
				t.Errorf("%s: frames %d, trailer %v: want the entries around the line", tt.name, len(rec.Frames()), rec.Trailer)
			}
			if len(rec.Problems) != 1 || rec.Problems[0].Kind != recorder.ProblemUnreadable || rec.Problems[0].Line != line ||
				!strings.Contains(rec.Problems[0].Message, tt.want) {
				t.Errorf("%s (after trailer %v): problems %v, want one unreadable line %d: %s", tt.name, after, rec.Problems, line, tt.want)
			}
			w := recorder.Warning(rec.Name, rec.Problems)
			if !strings.Contains(w, fmt.Sprintf("recording x.jsonl: line %d: unreadable-line", line)) {
				t.Errorf("%s: warning %q does not name x.jsonl and line %d", tt.name, w, line)
			}
		}
	}
}

// TestWriterKeepsOrderAroundBigEntries: entries of every size around the buffer's
// bounds (small ones buffered, ones over half the buffer written straight to the
// file) reach the file in the order they were written; a message of 130 to 256 KB
// after a small buffered one used to land before it.
func TestWriterKeepsOrderAroundBigEntries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	w, err := recorder.Create(path, recorder.Header{}, recorder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sizes := []int{10, 130 << 10, 10, 10, 200 << 10, 255 << 10, 10, 300 << 10, 10, 129 << 10, 127 << 10, 10}
	for i, n := range sizes {
		l := []byte(`{"jsonrpc":"2.0","method":"m","params":{"x":"` + strings.Repeat("y", n) + `"}}` + "\n")
		if err := w.WriteFrame(&wire.Frame{Seq: int64(i + 1), Dir: wire.ServerToClient, Line: l, Msg: wire.Classify(l)}); err != nil {
			t.Fatal(err)
		}
		if i == 6 {
			if err := w.WriteEntry(recorder.Entry{Type: recorder.TypeMeta, Header: &recorder.Header{CodexVersion: "0.171.0"}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(recorder.Trailer{}); err != nil {
		t.Fatal(err)
	}
	rec, err := recorder.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int64
	for _, e := range rec.Entries {
		if e.Type == recorder.TypeFrame {
			seqs = append(seqs, e.Seq)
		}
	}
	for i, s := range seqs {
		if s != int64(i+1) {
			t.Fatalf("frames in the file in the order %v", seqs)
		}
	}
	if len(seqs) != len(sizes) || len(rec.Problems) > 0 {
		t.Errorf("%d frames of %d, problems %v", len(seqs), len(sizes), rec.Problems)
	}
}
