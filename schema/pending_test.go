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
