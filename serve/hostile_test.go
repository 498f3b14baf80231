package serve_test

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/codexrec/codexrec/internal/testing/hostile"
	"github.com/codexrec/codexrec/serve"
)

// hostileCases are the shapes of hostile.Readers at sizes a test under the race
// detector reads in seconds: a message nested 100k levels deep, arrays nested 1M deep
// (past every reader's depth limit), a 5 MB line. The benchmarks of recorder, view
// and the other readers show the work stays linear at the full sizes.
func hostileCases() []hostile.Case {
	return []hostile.Case{
		{Name: "deep-100k", Rec: hostile.DeepRecording(100_000, "1")},
		{Name: "deep-1M", Rec: hostile.DeepArrayRecording(1_000_000)},
		{Name: "line-5MB", Rec: hostile.HugeLineRecording(5 << 20)},
	}
}

// TestHostileReaders serves recordings built to make readers do too much work: each
// is read whole, its page and frame are served, and search goes through it.
func TestHostileReaders(t *testing.T) {
	dir := t.TempDir()
	cases := hostileCases()
	for _, c := range cases {
		if err := os.WriteFile(filepath.Join(dir, c.Name+".jsonl"), c.Rec, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	srv, hs := start(t, serve.Options{Dirs: []string{dir}})
	l := waitList(t, hs, srv, "every hostile recording read", func(l sessionList) bool {
		if len(l.Sessions) != len(cases) {
			return false
		}
		for _, s := range l.Sessions {
			if s.Ended == "" {
				return false
			}
		}
		return true
	})
	for _, s := range l.Sessions {
		var p framesPage
		if code := getJSON(t, hs, srv, "/api/frames", url.Values{"id": {s.ID}, "raw": {"1"}}, &p); code != 200 || p.Matched != 1 {
			t.Errorf("%s: page %d, %d rows", s.Name, code, p.Matched)
			continue
		}
		if len(p.Frames[0].Raw) > 5<<10 {
			t.Errorf("%s: a row carries %d bytes of raw text; rows are clipped", s.Name, len(p.Frames[0].Raw))
		}
		var f struct {
			Content string `json:"content"`
			Clipped bool   `json:"clipped"`
			Size    int    `json:"size"`
		}
		if code := getJSON(t, hs, srv, "/api/frame", url.Values{"id": {s.ID}, "seq": {"1"}}, &f); code != 200 {
			t.Errorf("%s: frame %d", s.Name, code)
		}
		if f.Size > 1<<20 && (!f.Clipped || len(f.Content) > 1<<20+4) || f.Size == 0 {
			t.Errorf("%s: a %d-byte frame sent as %d bytes (clipped %v)", s.Name, f.Size, len(f.Content), f.Clipped)
		}
	}
	var hits struct{ Hits []struct{} }
	if code := getJSON(t, hs, srv, "/api/search", url.Values{"q": {"lorem ipsum"}}, &hits); code != 200 || len(hits.Hits) != 1 {
		t.Errorf("search through the 50 MB line: %d, %d hits", code, len(hits.Hits))
	}
}
