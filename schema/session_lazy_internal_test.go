package schema

import (
	"testing"

	"github.com/codexrec/codexrec/wire"
)

// TestExplicitVersionLoadsOnFirstFrame: an explicit version is checked and chosen at
// Start (a bad one fails there, and the header can name the schema), but its set,
// tens of megabytes decompressed, is loaded by the first frame: a session that ends
// before one loads nothing.
func TestExplicitVersionLoadsOnFirstFrame(t *testing.T) {
	bad := &SessionValidator{Version: "not-a-version"}
	if err := bad.Start(); err == nil {
		t.Fatal("Start accepted a bad version")
	}
	s := &SessionValidator{Version: "0.170.0", Classified: false}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	c, ok := s.Chosen()
	if !ok || c.Schema != "0.169.0" || c.From != FromExplicit || len(s.Notes()) != 1 {
		t.Fatalf("after Start: chosen %v %+v, notes %q", ok, c, s.Notes())
	}
	if s.set != nil || s.Finish() != nil || s.set != nil {
		t.Fatal("the set was loaded with no frame")
	}
	s.Frame(&wire.Frame{Seq: 1, Dir: wire.ClientToServer, Line: []byte(`{"id":0,"method":"initialize","params":{"clientInfo":{"name":"t","version":"1"}}}` + "\n")})
	if s.set == nil || s.v == nil {
		t.Fatal("the first frame did not load the set")
	}
	if c2, _ := s.Chosen(); c2 != c {
		t.Fatalf("the choice changed on load: %+v, then %+v", c, c2)
	}
}
