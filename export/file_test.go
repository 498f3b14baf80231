package export_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/codexrec/codexrec/export"
	"github.com/codexrec/codexrec/recorder"
)

// TestWriteFile: a new 0600 file holding what Write writes; an existing one is
// fs.ErrExist unless replaced; a file that cannot be created is an error.
func TestWriteFile(t *testing.T) {
	rec, err := recorder.ReadFile(fixtures[0])
	if err != nil {
		t.Fatal(err)
	}
	recs := []*recorder.Recording{rec}
	var want bytes.Buffer
	if err := export.Write(&want, export.JSONL, recs, export.Options{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "out.jsonl")
	if err := export.WriteFile(path, false, export.JSONL, fixtures[:1], export.Options{}, nil); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("file (%v) differs from Write's output", err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	if err := export.WriteFile(path, false, export.JSONL, fixtures[:1], export.Options{}, nil); !errors.Is(err, fs.ErrExist) {
		t.Errorf("existing file: %v, want fs.ErrExist", err)
	}
	if err := export.WriteFile(path, true, export.HAR, fixtures[:1], export.Options{}, nil); err != nil {
		t.Errorf("replace: %v", err)
	}
	if err := export.WriteFile(filepath.Join(dir, "no-such-dir", "x.har"), false, export.HAR, fixtures[:1], export.Options{}, nil); err == nil {
		t.Error("a file in a missing directory was written")
	}
}
