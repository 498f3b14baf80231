package record_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	corpus "github.com/codexrec/codexrec/internal/testing/secretcorpus"
	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/wire"
)

// TestGenCorpusEachCaseAlone records each case of the generated corpus (keys made
// by ssh-keygen, openssl and gpg when installed, beside the committed ones; signed
// JWTs, checksummed tokens; every placement) as a session of its own, with the
// guard alone (no sanitizer) and with the sanitizer, so that no other case's
// finding sends the file through GuardRedact for it: whatever decides that a
// session is clean as it goes (the guard's detectors on the way in, the follower
// trusting their output) must decide it for each secret alone. Nothing of a secret
// may survive in what is published, and a secret case under the guard alone is
// never published as clean.
func TestGenCorpusEachCaseAlone(t *testing.T) {
	dir := t.TempDir()
	keys, missing, err := corpus.Keys(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range missing {
		t.Logf("%s not installed: the committed key only", tool)
	}
	cases := corpus.GenCases(keys)
	dirs := map[string]wire.Direction{"c2s": wire.ClientToServer, "s2c": wire.ServerToClient, "stderr": wire.Stderr}
	for _, sanitizing := range []bool{false, true} {
		mode := map[bool]string{false: "guard-alone", true: "sanitized"}[sanitizing]
		leaked, secrets := 0, 0
		for i, c := range cases {
			z, err := sanitize.New(sanitize.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s := &record.Session{Guard: z}
			if sanitizing {
				s.Sanitizer = z
			}
			path := filepath.Join(dir, fmt.Sprintf("%s-%d.jsonl", mode, i))
			if err := s.Create(path, recorder.Header{}, recorder.Options{Force: true}); err != nil {
				t.Fatal(err)
			}
			for j, f := range c.Frames {
				d, ok := dirs[f.Dir]
				if !ok {
					t.Fatalf("%s/%s: direction %q", c.Kind, c.Placement, f.Dir)
				}
				line := []byte(f.Line + "\n")
				fr := &wire.Frame{Seq: int64(j + 1), Dir: d, Line: line, Time: time.Duration(j) * time.Millisecond}
				if d != wire.Stderr {
					fr.Msg = wire.Classify(line)
				}
				if err := s.Frame(fr); err != nil {
					t.Fatalf("%s/%s: frame %d: %v", c.Kind, c.Placement, j+1, err)
				}
			}
			_, err = s.Finish(recorder.Trailer{Ended: recorder.EndClientEOF})
			var re *sanitize.RedactedError
			var le *sanitize.LeakError
			switch {
			case err == nil && c.Secret != nil && !sanitizing:
				t.Errorf("%s: %s/%s: published as clean under the guard alone", mode, c.Kind, c.Placement)
			case err != nil && !errors.As(err, &re) && !errors.As(err, &le):
				t.Fatalf("%s: %s/%s: %v", mode, c.Kind, c.Placement, err)
			}
			if c.Secret == nil {
				continue
			}
			secrets++
			data, rerr := os.ReadFile(path)
			if rerr != nil {
				continue // not published (quarantined): nothing leaked
			}
			if leaks, _ := corpus.JudgeGenFile(data, []corpus.GenCase{c}); len(leaks) > 0 {
				leaked++
				t.Errorf("%s: %s/%s: %s survives in the published recording", mode, c.Kind, c.Placement, leaks[0])
			}
		}
		t.Logf("%s: %d cases (%d secrets) each recorded alone, %d leaked", mode, len(cases), secrets, leaked)
	}
}
