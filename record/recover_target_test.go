package record_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/codexrec/codexrec/record"
)

// TestRecoverTarget: with no target the recording is published under the name it
// was started for; a file not named like a recording in progress needs a target
// (ErrNotInProgress), and a file that does not exist is said to be missing, not
// misnamed.
func TestRecoverTarget(t *testing.T) {
	data := `{"type":"header","format":1,"codexrec":"0.1.0-dev","started":"2026-12-01T10:00:00Z","command":["cat"]}` + "\n" +
		`{"type":"frame","seq":1,"t":0.001,"dir":"c2s","msg":{"id":1,"method":"x"}}` + "\n"
	dir := t.TempDir()
	tmp := filepath.Join(dir, ".s.jsonl.123.tmp")
	if err := os.WriteFile(tmp, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	where, tr, err := record.Recover(tmp, "", record.RecoverOptions{})
	if err != nil || tr == nil || where != filepath.Join(dir, "s.jsonl") {
		t.Fatalf("Recover: %q, %+v, %v; want %s", where, tr, err, filepath.Join(dir, "s.jsonl"))
	}
	if _, err := os.Stat(where); err != nil {
		t.Errorf("not published: %v", err)
	}

	odd := filepath.Join(dir, "odd.tmp")
	if err := os.WriteFile(odd, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := record.Recover(odd, "", record.RecoverOptions{}); !errors.Is(err, record.ErrNotInProgress) {
		t.Errorf("misnamed: %v, want ErrNotInProgress", err)
	}
	if _, _, err := record.Recover(odd, filepath.Join(dir, "odd.jsonl"), record.RecoverOptions{}); err != nil {
		t.Errorf("misnamed with a target: %v", err)
	}
	_, _, err = record.Recover(filepath.Join(dir, "nofile.tmp"), "", record.RecoverOptions{})
	if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, record.ErrNotInProgress) {
		t.Errorf("missing: %v, want fs.ErrNotExist only", err)
	}
}
