package diff_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/recorder"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got with testdata/NAME, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

// TestPairs diffs hand-made recording pairs, one per kind of change, and checks the
// exact text and JSON reports.
func TestPairs(t *testing.T) {
	tests := []struct {
		name, dir string
		opts      diff.Options
		same      bool
	}{
		{name: "same", dir: "same", same: true},
		{name: "fields", dir: "fields"},
		{name: "fields-ignored", dir: "fields", opts: diff.Options{Ignore: []string{"/**/thread/name", "/**/thread/tokens", "/**/ephemeral", "/**/attachedToThreadId", "/result/model"}}, same: true},
		{name: "enums", dir: "enums"},
		{name: "messages", dir: "messages"},
		{name: "json-in-string", dir: "json-in-string"},
		{name: "moved", dir: "moved"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join("testdata", "pairs", tt.dir)
			old, err := diff.LoadFile(filepath.Join(dir, "old.jsonl"), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			nw, err := diff.LoadFile(filepath.Join(dir, "new.jsonl"), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			// Names in the report are the paths given; keep them short and stable.
			old.Name, nw.Name = "old.jsonl", "new.jsonl"
			r := diff.Compare(old, nw)
			if r.Same != tt.same {
				t.Errorf("Same = %v, want %v", r.Same, tt.same)
			}
			var text, js bytes.Buffer
			if err := r.WriteText(&text, false); err != nil {
				t.Fatal(err)
			}
			if err := r.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("golden", tt.name+".txt"), text.Bytes())
			golden(t, filepath.Join("golden", tt.name+".json"), js.Bytes())
		})
	}
}

func TestColour(t *testing.T) {
	dir := filepath.Join("testdata", "pairs", "fields")
	old, _ := diff.LoadFile(filepath.Join(dir, "old.jsonl"), diff.Options{})
	nw, _ := diff.LoadFile(filepath.Join(dir, "new.jsonl"), diff.Options{})
	var plain, colour bytes.Buffer
	r := diff.Compare(old, nw)
	r.WriteText(&plain, false)
	r.WriteText(&colour, true)
	if bytes.Contains(plain.Bytes(), []byte("\x1b[")) {
		t.Error("plain report has escape sequences")
	}
	if !bytes.Contains(colour.Bytes(), []byte("\x1b[32m+\x1b[0m")) || !bytes.Contains(colour.Bytes(), []byte("\x1b[31m-\x1b[0m")) {
		t.Errorf("coloured report lacks green + and red -:\n%q", colour.String())
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o600)
		return p
	}
	tests := []struct {
		name, path string
		opts       diff.Options
		want       string
	}{
		{"missing", filepath.Join(dir, "nope.jsonl"), diff.Options{}, "no such file"},
		{"not a recording", write("x.jsonl", `{"id":1,"method":"initialize"}`+"\n"), diff.Options{}, "not a recording: first line is not a header"},
		{"bad ignore", write("z.jsonl", `{"type":"header","format":1}`+"\n"), diff.Options{Ignore: []string{"params/x"}}, "starts with '/'"},
	}
	for _, tt := range tests {
		_, err := diff.LoadFile(tt.path, tt.opts)
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tt.want)) {
			t.Errorf("%s: err = %v, want it to mention %q", tt.name, err, tt.want)
		}
	}
	// A line that is no entry is skipped and reported, not an error.
	s, err := diff.LoadFile(write("y.jsonl", `{"type":"header","format":1}`+"\n"+`{"type":"frame","seq":1,"dir":"c2s","kind":"request","msg":{"id":1,`+"\n"), diff.Options{})
	if err != nil || len(s.Problems) != 1 || s.Problems[0].Line != 2 || s.Problems[0].Kind != recorder.ProblemUnreadable {
		t.Errorf("bad frame: err = %v, problems %v: want line 2 skipped as unreadable", err, s)
	}
}
