package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/codexrec/codexrec/internal/codexbin"
)

// TestCheckSARIFFile: check --sarif writes its report (which quotes recorded
// content) like --junit: mode 0600 whatever was there, and a symbolic link at the
// path is replaced, never written through.
func TestCheckSARIFFile(t *testing.T) {
	dir := t.TempDir()
	plain := replayFixture(codexbin.Newest, "plain")
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("not to be touched\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	linked, loose := filepath.Join(dir, "linked.sarif"), filepath.Join(dir, "loose.sarif")
	if err := os.Symlink(target, linked); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(loose, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{linked, loose, filepath.Join(dir, "new.sarif")} {
		r := runCodexrec(t, "", nil, "check", "--forbid-method", "turn/start", "--sarif", path, plain)
		if r.code != 1 {
			t.Fatalf("--sarif %s: exit %d, want 1 (a forbidden method)\n%s", path, r.code, r.stderr)
		}
		fi, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		if !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want a regular file 0600", path, fi.Mode())
		}
		b, _ := os.ReadFile(path)
		var log struct{ Version string }
		if err := json.Unmarshal(b, &log); err != nil || log.Version != "2.1.0" {
			t.Errorf("%s is not a SARIF 2.1.0 log: %v\n%.200s", path, err, b)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "not to be touched\n" {
		t.Errorf("--sarif wrote through the symbolic link: the target now holds %.100q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 4 {
		t.Errorf("files left in %s: %v (want target and three reports)", dir, ents)
	}
}
