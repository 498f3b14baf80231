package schema_test

import (
	"strings"
	"testing"

	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/wire"
)

// TestSessionValidatorHoldsNoHugeFrame: frames before the Codex version is known are
// held (copied) until it is, but a frame that would take the held bytes past the
// bound makes the policy decide at once, so it is checked, not copied.
func TestSessionValidatorHoldsNoHugeFrame(t *testing.T) {
	small := []byte(`{"method":"item/agentMessage/delta","params":{"threadId":"a","turnId":"b","itemId":"c","delta":"d"}}` + "\n")
	huge := []byte(`{"method":"item/agentMessage/delta","params":{"threadId":"a","turnId":"b","itemId":"c","delta":"` +
		strings.Repeat("x", 17<<20) + `"}}` + "\n")
	sv := &schema.SessionValidator{}
	if fs := sv.Frame(&wire.Frame{Seq: 1, Dir: wire.ServerToClient, Line: small}); len(fs) != 0 {
		t.Fatalf("a held frame returned findings: %v", fs)
	}
	if _, ok := sv.Chosen(); ok {
		t.Fatal("a version was chosen before any frame said one")
	}
	fs := sv.Frame(&wire.Frame{Seq: 2, Dir: wire.ServerToClient, Line: huge})
	if _, ok := sv.Chosen(); !ok {
		t.Fatal("a 17 MB frame was held instead of deciding the version")
	}
	if len(fs) != 0 {
		t.Errorf("both frames are clean, got %v", fs)
	}
}

// TestSessionValidatorDecidesPastByteBound: when the frames waiting for the version
// pass the byte bound, the policy decides without the initialize response (the
// header's version here), says so in the notes, and checks the frames it held; the
// initialize response that comes later changes nothing.
func TestSessionValidatorDecidesPastByteBound(t *testing.T) {
	unknown := []byte(`{"method":"no/such/method","params":{}}` + "\n")
	big := []byte(`{"method":"item/agentMessage/delta","params":{"threadId":"a","turnId":"b","itemId":"c","delta":"` +
		strings.Repeat("x", 5<<20) + `"}}` + "\n")
	sv := &schema.SessionValidator{Header: "0.163.0"}
	var fs []schema.Finding
	for i, line := range [][]byte{unknown, big, big} {
		fs = append(fs, sv.Frame(&wire.Frame{Seq: int64(i + 1), Dir: wire.ServerToClient, Line: line})...)
	}
	c, ok := sv.Chosen()
	if !ok || c.From != schema.FromHeader || c.Schema != "0.163.0" {
		t.Fatalf("chosen %+v (%v), want the header's 0.163.0", c, ok)
	}
	if notes := strings.Join(sv.Notes(), "\n"); !strings.Contains(notes, "chosen before the initialize response") {
		t.Errorf("notes %q do not say the version was chosen before initialize", notes)
	}
	if len(fs) == 0 || fs[0].Seq != 1 {
		t.Errorf("findings %v: want the held frame 1's unknown method first", fs)
	}
	resp := []byte(`{"id":0,"result":{"userAgent":"codex_cli_rs/0.171.0 (test)"}}` + "\n")
	sv.Frame(&wire.Frame{Seq: 4, Dir: wire.ServerToClient, Line: resp, Msg: wire.Classify(resp)})
	if c2, _ := sv.Chosen(); c2 != c {
		t.Errorf("the initialize response changed the choice to %+v", c2)
	}
}
