package diff_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/diff"
)

// TestRun: Run gives the same report streaming and with the sessions held for a
// page, writes it as asked, warns of structural problems on Log, and stops at a
// page's error.
func TestRun(t *testing.T) {
	old := filepath.Join("..", "fixtures", "hermetic", "0.163.0", "plain.jsonl")
	nw := filepath.Join("..", "fixtures", "hermetic", "0.171.0", "plain.jsonl")
	var streamed, held bytes.Buffer
	r1, err := diff.Run(old, nw, diff.RunOptions{Out: &streamed, JSON: true})
	if err != nil {
		t.Fatal(err)
	}
	var paged bool
	r2, err := diff.Run(old, nw, diff.RunOptions{Out: &held, JSON: true, Page: func(o, n *diff.Session, r *diff.Report) error {
		paged = o.Name == old && n.Name == nw && r != nil
		return nil
	}})
	if err != nil || !paged {
		t.Fatalf("with a page: %v, page called with the sessions: %v", err, paged)
	}
	if !bytes.Equal(streamed.Bytes(), held.Bytes()) || r1.Same != r2.Same || !json.Valid(streamed.Bytes()) {
		t.Errorf("streamed and held reports differ:\n%s\n---\n%s", streamed.String(), held.String())
	}
	if r1.Same || !r1.Differs(false) {
		t.Errorf("0.163.0 and 0.171.0 sessions: same %v, differs %v", r1.Same, r1.Differs(false))
	}
	same, err := diff.Run(nw, nw, diff.RunOptions{})
	if err != nil || !same.Same || same.Differs(false) {
		t.Errorf("a recording against itself: %v same %v", err, same.Same)
	}

	// A torn last line is said on Log, once per recording, and still compared.
	torn := filepath.Join(t.TempDir(), "torn.jsonl")
	b, _ := os.ReadFile(nw)
	os.WriteFile(torn, append(b, `{"type":"frame","seq":`...), 0o600)
	var log bytes.Buffer
	if _, err := diff.Run(nw, torn, diff.RunOptions{Log: &log}); err != nil || strings.Count(log.String(), "\n") != 1 || !strings.Contains(log.String(), "torn.jsonl") {
		t.Errorf("torn: %v, log %q", err, log.String())
	}

	stop := errors.New("stop")
	var out bytes.Buffer
	if _, err := diff.Run(old, nw, diff.RunOptions{Out: &out, Page: func(*diff.Session, *diff.Session, *diff.Report) error { return stop }}); err != stop || out.Len() != 0 {
		t.Errorf("page error: %v, report %d bytes; want the error and no report", err, out.Len())
	}
	if _, err := diff.Run(filepath.Join(t.TempDir(), "none.jsonl"), nw, diff.RunOptions{}); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
}

// TestSchemas: two embedded versions compared and reported; the tiers reached.
func TestSchemas(t *testing.T) {
	var out bytes.Buffer
	r, err := diff.Schemas("0.163.0", "0.171.0", diff.SchemaOptions{Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	worst, any := r.Worst()
	if !any || !r.Reaches(diff.TierInfo) || !r.Reaches(worst) || worst < diff.TierBreaking && r.Reaches(worst+1) || out.Len() == 0 {
		t.Errorf("worst %v (%v); report:\n%s", worst, any, out.String())
	}
	same, err := diff.Schemas("0.171.0", "0.171.0", diff.SchemaOptions{})
	if err != nil || same.Reaches(diff.TierInfo) {
		t.Errorf("a version against itself: %v, reaches info %v", err, same.Reaches(diff.TierInfo))
	}
	if _, err := diff.Schemas("0.171.0", filepath.Join(t.TempDir(), "none", "x"), diff.SchemaOptions{}); err == nil {
		t.Error("a missing folder loaded")
	}
	out.Reset()
	if err := diff.WriteSchemaRules(&out); err != nil || strings.Count(out.String(), "\n") != len(diff.Rules()) {
		t.Errorf("rules: %v\n%s", err, out.String())
	}
}
