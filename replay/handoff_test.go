package replay_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/replay"
)

// TestHandoff: with Handoff, the first client message the recording lacks ends
// Serve with a HandoffError naming its line; it gets no error answer, nothing is
// written about it, and what the replay owed before it was sent.
func TestHandoff(t *testing.T) {
	sc := load(t, fixture(codexbin.Newest, "plain"), 0)
	s := serve(t, &replay.Server{Script: sc, Handoff: true})
	got := driveRecorded(s, sc)
	got = append(got, s.notification("turn/completed")...)
	s.send(`{"id":9,"method":"turn/start","params":{"threadId":"t","input":[{"type":"text","text":"again"}]}}`)
	err := s.finish()
	var h *replay.HandoffError
	if !errors.As(err, &h) || h.Mismatch.Line != 5 || len(h.Held) != 0 || errors.Is(err, replay.ErrNoMatch) {
		t.Fatalf("Serve: %v, want a HandoffError at client line 5", err)
	}
	if !strings.Contains(h.Mismatch.Reason, "expects no more client messages") {
		t.Errorf("reason %q", h.Mismatch.Reason)
	}
	for _, l := range append(got, s.rest()...) {
		if strings.Contains(l, `"id":9`) {
			t.Errorf("the message handed off was answered: %s", l)
		}
	}
	if s.log.String() != "" {
		t.Errorf("the replay wrote about the handoff:\n%s", s.log.String())
	}
}

// TestExtendedSegment: a segment entry that extends the segment asked for is
// served in its place; one that extends another segment, or a plain restart, is
// not.
func TestExtendedSegment(t *testing.T) {
	b, err := os.ReadFile(fixture(codexbin.Newest, "plain"))
	if err != nil {
		t.Fatal(err)
	}
	b = b[:bytes.LastIndex(b[:len(b)-1], []byte("\n"))+1] // without the trailer
	frame := func(seq string) string {
		return `{"type":"frame","seq":` + seq + `,"t":2,"dir":"c2s","kind":"request","method":"initialize","id":0,"msg":{"id":0,"method":"initialize","params":{}}}` + "\n"
	}
	for _, tc := range []struct {
		name      string
		tail      string
		ask, want int
		frames    int
	}{
		{"extension served for 1", `{"type":"segment","segment":2,"extends":1}` + "\n" + frame("100"), 1, 2, 1},
		{"extension served for the default", `{"type":"segment","segment":2,"extends":1}` + "\n" + frame("100"), 0, 2, 1},
		{"extension asked for itself", `{"type":"segment","segment":2,"extends":1}` + "\n" + frame("100"), 2, 2, 1},
		{"extension of an extension", `{"type":"segment","segment":2,"extends":1}` + "\n" + frame("100") + `{"type":"segment","segment":3,"extends":2}` + "\n" + frame("101") + frame("102"), 1, 3, 2},
		{"extension of another segment", `{"type":"segment","segment":2}` + "\n" + frame("100") + `{"type":"segment","segment":3,"extends":2}` + "\n" + frame("101"), 1, 1, 4},
		{"a restart", `{"type":"segment","segment":2}` + "\n" + frame("100"), 1, 1, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.jsonl")
			if err := os.WriteFile(path, append(bytes.Clone(b), tc.tail...), 0o600); err != nil {
				t.Fatal(err)
			}
			sc := load(t, path, tc.ask)
			if sc.Segment != tc.want || len(sc.Client) != tc.frames {
				t.Fatalf("segment %d asked: served %d with %d client frames, want %d with %d", tc.ask, sc.Segment, len(sc.Client), tc.want, tc.frames)
			}
		})
	}
}
