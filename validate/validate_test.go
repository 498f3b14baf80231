package validate_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/validate"
)

var plain = filepath.Join("..", "fixtures", "hermetic", "0.171.0", "plain.jsonl")

func TestFileCommitted(t *testing.T) {
	res, err := validate.File(plain, validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Frames == 0 || res.CodexVersion != "0.171.0" || res.SchemaVersion != "0.171.0" || len(res.Findings) != 0 || res.Warning != "" {
		t.Errorf("result %+v", res)
	}
	var b bytes.Buffer
	if err := res.WriteText(&b); err != nil || !strings.HasSuffix(b.String(), "frames, no findings\n") {
		t.Errorf("text %q (%v)", b.String(), err)
	}
	var rep validate.Report
	rep.Add(res)
	b.Reset()
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Files []struct {
			File     string
			Frames   int
			Findings []any
		}
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil || len(doc.Files) != 1 || doc.Files[0].Frames != res.Frames || doc.Files[0].Findings == nil {
		t.Errorf("json %s (%v)", b.String(), err)
	}
}

// TestFileFindings: a method the schema does not know is found, findings in seq
// order.
func TestFileFindings(t *testing.T) {
	b, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	// An edit the real binary cannot be made to produce: a method no version has.
	edited := strings.Replace(string(b), `"method":"thread/start"`, `"method":"thread/frobnicate"`, -1)
	p := filepath.Join(t.TempDir(), "edited.jsonl")
	if err := os.WriteFile(p, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := validate.File(p, validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) == 0 {
		t.Fatal("no findings for an unknown method")
	}
	for i := 1; i < len(res.Findings); i++ {
		if res.Findings[i].Seq < res.Findings[i-1].Seq {
			t.Errorf("findings out of seq order: %v", res.Findings)
		}
	}
	if s := validate.CountFindings(res.Findings); !strings.Contains(s, "unknown-method") {
		t.Errorf("count %q", s)
	}
}

func TestFileErrors(t *testing.T) {
	if _, err := validate.File(plain, validate.Options{SchemaDir: filepath.Join(t.TempDir(), "none")}); !errors.Is(err, validate.ErrSchema) {
		t.Errorf("a missing schema folder: %v, want ErrSchema", err)
	}
	if _, err := validate.File(filepath.Join(t.TempDir(), "missing.jsonl"), validate.Options{}); err == nil || errors.Is(err, validate.ErrSchema) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing recording: %v", err)
	}
}
