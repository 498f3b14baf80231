package schema_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/wire"
)

// checkRecording validates every frame of a recording, a fresh validator per server
// process lifetime.
func checkRecording(t *testing.T, path string, set *schema.Set) (findings []schema.Finding, frames int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := recorder.NewReader(f, path)
	if err != nil {
		t.Fatal(err)
	}
	v := schema.NewValidator(set)
	for e, err := range rd.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		switch e.Type {
		case recorder.TypeSegment:
			v = schema.NewValidator(set)
		case recorder.TypeFrame:
			frames++
			findings = append(findings, v.Check(&wire.Frame{Seq: e.Seq, Dir: e.Dir, Line: e.Line})...)
		}
	}
	return findings, frames
}

// TestHermeticFixtures: the captured fixtures (recorded from the real binaries by
// codexrec capture) validate clean against their own version, and the newest
// version's fixtures show only undeclared fields against the oldest schema.
func TestHermeticFixtures(t *testing.T) {
	for _, v := range codexbin.Versions {
		paths, _ := filepath.Glob(filepath.Join("..", "fixtures", "hermetic", v, "*.jsonl"))
		if len(paths) == 0 {
			t.Errorf("no fixtures under fixtures/hermetic/%s (committed; make fixtures writes them)", v)
			continue
		}
		own, err := schema.Load(v)
		if err != nil {
			t.Fatal(err)
		}
		old, err := schema.Load(codexbin.Oldest)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			fs, n := checkRecording(t, p, own)
			for _, f := range fs {
				t.Errorf("%s: %s", p, f)
			}
			if n == 0 {
				t.Errorf("%s: no frames", p)
			}
			if v == codexbin.Oldest {
				continue
			}
			fs, _ = checkRecording(t, p, old)
			for _, f := range fs {
				if f.Rule != schema.RuleUndeclaredField {
					t.Errorf("%s against %s: %s", p, codexbin.Oldest, f)
				}
			}
		}
	}
}
