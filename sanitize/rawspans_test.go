package sanitize

import (
	"math/rand/v2"
	"testing"
)

// TestRawSpansAgreesWithUnescape: the boundary mapping gives the offsets unescape's
// per-byte table gives, on strings full of escapes.
func TestRawSpansAgreesWithUnescape(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	units := []string{`a`, `Z`, `\n`, `\"`, `\\`, `\/`, `\u00e9`, `\ud83d\ude00`, `\ud800`, `é`, `\t`, `x`}
	for it := 0; it < 2000; it++ {
		var raw []byte
		for n := r.IntN(30); n > 0; n-- {
			raw = append(raw, units[r.IntN(len(units))]...)
		}
		dec, offs := unescape(raw, make([]int, 0, len(raw)+1))
		var spans []span
		for n := r.IntN(4); n > 0; n-- {
			a := r.IntN(len(dec) + 1)
			b := a + r.IntN(len(dec)-a+1)
			spans = append(spans, span{a, b, "r", "x", nil})
		}
		got := rawSpans(raw, spans)
		for k, s := range spans {
			if got[k].start != offs[s.start] || got[k].end != offs[s.end] {
				t.Fatalf("%q span %d-%d: got %d-%d, want %d-%d", raw, s.start, s.end, got[k].start, got[k].end, offs[s.start], offs[s.end])
			}
		}
	}
}
