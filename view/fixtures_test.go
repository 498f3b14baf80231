package view_test

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/codexrec/codexrec/recorder"
)

// fixtureDir holds the capture helper's committed recordings of the real binaries:
// fixtures/hermetic/<version>/<scenario>.jsonl.
var fixtureDir = filepath.Join("..", "fixtures", "hermetic")

// fixtures lists the committed recordings, version/scenario.jsonl, in order. With none
// the test fails: they are part of the repository.
func fixtures(t *testing.T) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(fixtureDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".jsonl" {
			rel, _ := filepath.Rel(fixtureDir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	if len(out) == 0 {
		// committed with the repository: never missing
		t.Fatalf("no recordings under %s", fixtureDir)
	}
	return out
}

// fixture reads one committed recording, e.g. fixture(t, "0.171.0/approval-accept.jsonl").
func fixture(t testing.TB, rel string) *recorder.Recording {
	t.Helper()
	rel = filepath.Join(fixtureDir, rel)
	if _, err := os.Stat(rel); err != nil {
		// committed with the repository: never missing
		t.Fatal(err)
	}
	rec, err := recorder.ReadFile(rel)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func mustReadFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
