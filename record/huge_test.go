package record_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/wire"
)

// TestHugeDeltaWrittenInOrder: a delta longer than what a session copies to wait for
// its successor is written at once, after the frames that were waiting (of both
// directions), byte for byte; a secret cut between a waiting delta and the huge one,
// and between the huge one and the next, is redacted all the same.
func TestHugeDeltaWrittenInOrder(t *testing.T) {
	const secret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
	z, err := sanitize.New(sanitize.Options{Salt: "huge"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	s := &record.Session{Sanitizer: z}
	if err := s.Create(path, recorder.Header{}, recorder.Options{}); err != nil {
		t.Fatal(err)
	}
	delta := func(text string) string {
		return `{"method":"item/commandExecution/outputDelta","params":{"itemId":"call_1","delta":"` + text + `"}}` + "\n"
	}
	filler := strings.Repeat(`ok  \tgithub.com/example/project\t0.042s\n`, 2<<20/40)
	frames := []struct {
		dir  wire.Direction
		line string
	}{
		{wire.ServerToClient, delta(`token: ` + secret[:20])},
		{wire.ClientToServer, `{"method":"item/commandExecution/outputDelta","params":{"itemId":"c","delta":"x"}}` + "\n"},
		{wire.ServerToClient, delta(secret[20:] + `\n` + filler + `export KEY=` + secret[:24])},
		{wire.ServerToClient, delta(secret[24:] + `\ndone\n`)},
	}
	for i, f := range frames {
		line := []byte(f.line)
		if err := s.Frame(&wire.Frame{Seq: int64(i + 1), Dir: f.dir, Line: line, Msg: wire.Classify(line)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Finish(recorder.Trailer{Ended: recorder.EndClientEOF}); err != nil {
		t.Fatal(err)
	}
	rec, err := recorder.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int64
	var all []byte
	for _, e := range rec.Entries {
		if e.Type == recorder.TypeFrame {
			seqs = append(seqs, e.Seq)
			all = append(all, e.Line...)
		}
	}
	if len(seqs) != 4 || seqs[0] != 1 || seqs[1] != 2 || seqs[2] != 3 || seqs[3] != 4 {
		t.Fatalf("frames written as seq %v, want 1 2 3 4", seqs)
	}
	for _, piece := range []string{secret[:20], secret[20:], secret[8:24], secret[24:]} {
		if bytes.Contains(all, []byte(piece)) {
			t.Errorf("a piece of the secret (%s) survives", sanitize.Mask([]byte(piece)))
		}
	}
	if !bytes.Contains(all, []byte(filler)) {
		t.Error("the huge delta's clean text changed")
	}
	if b, err := os.ReadFile(path); err != nil || bytes.Contains(b, []byte(secret)) {
		t.Errorf("the recording holds the secret (%v)", err)
	}
}
