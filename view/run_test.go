package view_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/view"
)

// TestShow: Show writes what the renderers write, following a published recording
// as reading it once does, and says on Log what was wrong with it or that it waits.
func TestShow(t *testing.T) {
	path := filepath.Join(fixtureDir, "0.171.0", "approval-accept.jsonl")
	want := renderText(t, path, path, view.Text{})
	for _, follow := range []bool{false, true} {
		var out, log bytes.Buffer
		if err := view.Show(context.Background(), path, view.ShowOptions{Out: &out, Follow: follow, Log: &log}); err != nil {
			t.Fatal(err)
		}
		if out.String() != want || log.Len() != 0 {
			t.Errorf("follow %v: the timeline differs from Text's, or log %q:\n%s", follow, log.String(), firstDiff(want, out.String()))
		}
	}

	var out bytes.Buffer
	if err := view.Show(context.Background(), path, view.ShowOptions{Out: &out, JSON: true, Methods: []string{"turn/*"}}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		File   string
		Frames []struct{ Method string }
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || doc.File != path || len(doc.Frames) == 0 {
		t.Fatalf("JSON %v: %.300s", err, out.String())
	}
	for _, f := range doc.Frames {
		if !strings.HasPrefix(f.Method, "turn/") {
			t.Errorf("frame %q kept by the filter turn/*", f.Method)
		}
	}

	// A torn last line: the timeline still ends, the problem said once.
	torn := filepath.Join(t.TempDir(), "torn.jsonl")
	b, _ := os.ReadFile(path)
	os.WriteFile(torn, append(b, `{"type":"frame","seq":`...), 0o600)
	var log bytes.Buffer
	out.Reset()
	if err := view.Show(context.Background(), torn, view.ShowOptions{Out: &out, Log: &log}); err != nil || out.Len() == 0 ||
		strings.Count(log.String(), "\n") != 1 || !strings.Contains(log.String(), "torn.jsonl") {
		t.Errorf("torn: %v, log %q", err, log.String())
	}

	missing := filepath.Join(t.TempDir(), "later.jsonl")
	if err := view.Show(context.Background(), missing, view.ShowOptions{Out: &out}); err == nil || !strings.HasPrefix(err.Error(), "recording: ") {
		t.Errorf("missing: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	log.Reset()
	err := view.Show(ctx, missing, view.ShowOptions{Out: &out, Follow: true, Poll: 10 * time.Millisecond, Log: &log})
	if !errors.Is(err, context.DeadlineExceeded) || log.String() != "waiting for "+missing+" to be recorded\n" {
		t.Errorf("following what is not there yet: %v, log %q", err, log.String())
	}
}

// TestWriteSummary: the overview as text or JSON; a recording's problems on Log.
func TestWriteSummary(t *testing.T) {
	path := filepath.Join(fixtureDir, "0.171.0", "plain.jsonl")
	var text, js, log bytes.Buffer
	if err := view.WriteSummary(&text, path, view.SummaryOptions{Log: &log}); err != nil || !strings.Contains(text.String(), path) {
		t.Errorf("text: %v\n%s", err, text.String())
	}
	if err := view.WriteSummary(&js, path, view.SummaryOptions{JSON: true, Log: &log}); err != nil || !json.Valid(js.Bytes()) {
		t.Errorf("JSON: %v\n%s", err, js.String())
	}
	if log.Len() != 0 {
		t.Errorf("log of a sound recording: %q", log.String())
	}
	torn := filepath.Join(t.TempDir(), "torn.jsonl")
	b, _ := os.ReadFile(path)
	os.WriteFile(torn, append(b, `{"type":"frame","seq":`...), 0o600)
	if err := view.WriteSummary(&text, torn, view.SummaryOptions{Log: &log}); err != nil || !strings.Contains(log.String(), "torn.jsonl") {
		t.Errorf("torn: %v, log %q", err, log.String())
	}
	if err := view.WriteSummary(&text, filepath.Join(t.TempDir(), "none.jsonl"), view.SummaryOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

// TestWriteDiffHTMLFiles: the page of a diff, its recordings read from where the
// sessions were loaded, is the page WriteDiffHTML draws from them.
func TestWriteDiffHTMLFiles(t *testing.T) {
	oldRel, newRel := "0.163.0/plain.jsonl", "0.171.0/plain.jsonl"
	oldS, newS, err := diff.LoadFiles(filepath.Join(fixtureDir, oldRel), filepath.Join(fixtureDir, newRel), diff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := diff.Compare(oldS, newS)
	var got, want bytes.Buffer
	if err := (view.Page{}).WriteDiffHTMLFiles(&got, oldS, newS, r); err != nil {
		t.Fatal(err)
	}
	if err := (view.Page{}).WriteDiffHTML(&want, fixture(t, oldRel), fixture(t, newRel), oldS, newS, r); err != nil {
		t.Fatal(err)
	}
	if got.Len() == 0 || !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Errorf("page from the files (%d bytes) differs from the page of the recordings (%d bytes)", got.Len(), want.Len())
	}
	oldS.Name = filepath.Join(t.TempDir(), "gone.jsonl")
	if err := (view.Page{}).WriteDiffHTMLFiles(&got, oldS, newS, r); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a recording gone: %v", err)
	}
}
