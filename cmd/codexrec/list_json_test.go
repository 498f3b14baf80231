package main_test

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/codexrec/codexrec/fixtures"
	"github.com/codexrec/codexrec/internal/codexbin"
)

// TestListJSON: codex list --json and capture --list --json print a JSON array of
// objects: every pinned codex version (installed ones with an existing path), every
// shipped scenario with its description.
func TestListJSON(t *testing.T) {
	r := runCodexrec(t, "", nil, "codex", "list", "--json")
	if r.code != 0 {
		t.Fatalf("codex list --json: exit %d\n%s", r.code, r.stderr)
	}
	var bins []struct {
		Version   *string `json:"version"`
		Path      string  `json:"path"`
		Installed *bool   `json:"installed"`
	}
	if err := json.Unmarshal(r.stdout, &bins); err != nil {
		t.Fatalf("codex list --json: %v\n%s", err, r.stdout)
	}
	var versions []string
	for _, b := range bins {
		if b.Version == nil || b.Installed == nil {
			t.Fatalf("codex list --json: an entry without version or installed: %s", r.stdout)
		}
		versions = append(versions, *b.Version)
		if fi, err := os.Stat(b.Path); *b.Installed && (err != nil || fi.Mode()&0o111 == 0) {
			t.Errorf("installed codex %s at %q: not an executable (%v)", *b.Version, b.Path, err)
		} else if !*b.Installed && b.Path != "" {
			t.Errorf("codex %s not installed but has a path %q", *b.Version, b.Path)
		}
	}
	for _, v := range codexbin.Versions {
		if !slices.Contains(versions, v) {
			t.Errorf("codex list --json lacks pinned version %s: %s", v, r.stdout)
		}
	}

	r = runCodexrec(t, "", nil, "capture", "--list", "--json")
	if r.code != 0 {
		t.Fatalf("capture --list --json: exit %d\n%s", r.code, r.stderr)
	}
	var scenarios []struct{ Name, Description string }
	if err := json.Unmarshal(r.stdout, &scenarios); err != nil {
		t.Fatalf("capture --list --json: %v\n%s", err, r.stdout)
	}
	var names []string
	for _, s := range scenarios {
		if s.Description == "" {
			t.Errorf("scenario %q without description", s.Name)
		}
		names = append(names, s.Name)
	}
	if !slices.Equal(names, fixtures.Names()) {
		t.Errorf("capture --list --json names %v, want %v", names, fixtures.Names())
	}

	// --json without --list, and on rerun, is refused rather than ignored.
	for _, args := range [][]string{{"capture", "--json", "--scenario", "plain", "-o", "x.jsonl"}, {"rerun", "--json", "-o", "x.jsonl", "y.jsonl"}} {
		if r := runCodexrec(t, t.TempDir(), nil, args...); r.code != 2 || len(r.stdout) > 0 {
			t.Errorf("%v: exit %d, want 2\n%s", args, r.code, r.stderr)
		}
	}
}
