package validate_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/validate"
)

// TestFiles: several recordings in each format; one with an unknown method fails
// the run when Fails says so; one that cannot be read is said on Log and makes the
// error ErrUnread while the others are still written.
func TestFiles(t *testing.T) {
	b, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// An edit the real binary cannot be made to produce: a method no version has.
	edited := filepath.Join(dir, "edited.jsonl")
	if err := os.WriteFile(edited, bytes.ReplaceAll(b, []byte(`"method":"thread/start"`), []byte(`"method":"thread/frobnicate"`)), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.jsonl")
	errorsFail := func(r schema.Rule) bool { return r.Severity() == schema.SeverityError }

	var out, log bytes.Buffer
	failed, err := validate.Files([]string{plain, missing, edited}, &out, validate.FilesOptions{Fails: errorsFail, Log: &log})
	if !errors.Is(err, validate.ErrUnread) || !failed {
		t.Fatalf("Files: failed %v, %v; want failed and ErrUnread", failed, err)
	}
	if !strings.Contains(log.String(), "missing.jsonl") || strings.Count(log.String(), "\n") != 1 {
		t.Errorf("log %q, want one line naming the missing recording", log.String())
	}
	if !strings.Contains(out.String(), "frames, no findings") || !strings.Contains(out.String(), "unknown-method") {
		t.Errorf("text:\n%s", out.String())
	}

	out.Reset()
	failed, err = validate.Files([]string{plain, edited}, &out, validate.FilesOptions{Format: validate.JSON})
	if err != nil || failed {
		t.Fatalf("JSON without Fails: failed %v, %v", failed, err)
	}
	var doc validate.Report
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc.Files) != 2 || doc.Failed || len(doc.Files[1].Findings) == 0 {
		t.Errorf("JSON document (%v): %s", err, out.String())
	}

	out.Reset()
	if _, err := validate.Files([]string{edited}, &out, validate.FilesOptions{Format: validate.JSONL}); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var f validate.FindingJSON
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Errorf("JSONL line %q: %v", line, err)
		}
	}

	if _, err := validate.Files([]string{plain}, &out, validate.FilesOptions{Options: validate.Options{SchemaDir: filepath.Join(dir, "none")}}); !errors.Is(err, validate.ErrSchema) {
		t.Errorf("a missing schema folder: %v, want ErrSchema", err)
	}
}
