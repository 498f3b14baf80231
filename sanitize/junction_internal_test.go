package sanitize

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestJunctionEdgeHoldsEveryLiteral: windowHot's window on each side of a junction
// is at least as long as every literal of the prefilters, so a literal cut anywhere
// by the junction lies whole in it.
func TestJunctionEdgeHoldsEveryLiteral(t *testing.T) {
	z, err := New(Options{Secrets: []Secret{{Name: "A", Value: "fake-access-token-0123456789"}}, Maps: []Map{{From: "/home/ann/projects", To: "<p>"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, guard := range []bool{false, true} {
		for _, l := range z.prefilter(guard).m.lits {
			if len(l) > junctionEdge {
				t.Errorf("literal %q (%d bytes) is longer than junctionEdge (%d)", l, len(l), junctionEdge)
			}
		}
	}
}

// TestLongKeywordCutBetweenDeltas: gitleaks' sidekiq rule, whose keyword is the
// longest literal, finds its secret whatever cut of the keyword two deltas make,
// as record sanitizes them (each knowing the next).
func TestLongKeywordCutBetweenDeltas(t *testing.T) {
	const secret = "cafebabe:deadbeef"
	text := strings.Repeat("building the bundle now, please wait; ", 4) + "BUNDLE_ENTERPRISE__CONTRIBSYS__COM=" + secret + "\nok\n"
	at := strings.Index(text, "BUNDLE_")
	line := func(s string) []byte {
		q, _ := json.Marshal(s)
		return []byte(`{"method":"item/commandExecution/outputDelta","params":{"itemId":"c1","delta":` + string(q) + `}}` + "\n")
	}
	for k := at; k <= at+len("BUNDLE_ENTERPRISE__CONTRIBSYS__COM="); k++ {
		z, err := New(Options{Salt: "cut"})
		if err != nil {
			t.Fatal(err)
		}
		first, second := line(text[:k]), line(text[k:])
		out1, reds1 := z.FrameFollowedBy(first, true, second)
		out2, reds2 := z.FrameFollowedBy(second, true, nil)
		if strings.Contains(string(out1)+string(out2), secret) || len(reds1)+len(reds2) == 0 {
			t.Fatalf("keyword cut after %d bytes: the secret was recorded:\n%s%s", k-at, out1, out2)
		}
	}
}
