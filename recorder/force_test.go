package recorder_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/recorder"
)

// TestForceKeepsAnotherSession: two sessions recording with Force to one target
// both end with a recording: the first replaces what was there when it started; the
// second finds the first's recording, which it never saw, and goes to the next free
// name saying so. Whether the target existed before makes no difference.
func TestForceKeepsAnotherSession(t *testing.T) {
	for _, existed := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, "r.jsonl")
		if existed {
			if err := os.WriteFile(path, []byte("old\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		a, err := recorder.Create(path, recorder.Header{Codexrec: "a"}, recorder.Options{Force: true})
		if err != nil {
			t.Fatal(err)
		}
		b, err := recorder.Create(path, recorder.Header{Codexrec: "b"}, recorder.Options{Force: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Close(recorder.Trailer{Ended: recorder.EndClientEOF}); err != nil {
			t.Fatalf("existed %v: first session: %v", existed, err)
		}
		err = b.Close(recorder.Trailer{Ended: recorder.EndClientEOF})
		var kept *recorder.KeptElsewhereError
		if !errors.As(err, &kept) || !errors.Is(err, recorder.ErrExists) || !strings.Contains(err.Error(), "another recording") {
			t.Fatalf("existed %v: second session: %v, want it kept elsewhere", existed, err)
		}
		for p, who := range map[string]string{path: "a", kept.Path: "b"} {
			rec, err := recorder.ReadFile(p)
			if err != nil || rec.Header.Codexrec != who {
				t.Errorf("existed %v: %s: %v, header %+v: want session %s", existed, p, err, rec, who)
			}
		}
		if kept.Path != filepath.Join(dir, "r.2.jsonl") || b.PublishedPath() != kept.Path {
			t.Errorf("existed %v: kept at %s (published %s)", existed, kept.Path, b.PublishedPath())
		}
	}
}
