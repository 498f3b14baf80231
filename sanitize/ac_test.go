package sanitize

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestScanLanes: the four-lane scan of a long text finds exactly what one pass does,
// in the same order, patterns straddling the lane boundaries included.
func TestScanLanes(t *testing.T) {
	z, err := New(Options{Secrets: []Secret{{"A", "fake-access-token-0123456789"}}, Maps: []Map{{"/tmp/x", "<t>"}}})
	if err != nil {
		t.Fatal(err)
	}
	m := z.prefilter(false).m.matcher()
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"sk-", "key=", "token: ", `"env"`, "://", "/tmp/x", "abc ", "PRIVATE KEY", "eyJ", "  ", "Bearer ", "xyz", "fake-access-token-0123456789"}
	for i := range 600 {
		var b bytes.Buffer
		// Half of the texts are short: lanes start from about a hundred bytes.
		n := r.IntN(20000)
		if i%2 == 1 {
			n = r.IntN(2048)
		}
		for b.Len() < n {
			b.WriteString(words[r.IntN(len(words))])
		}
		text := b.Bytes()
		a1, h1 := m.scanFrom(text, 0, 0, len(text), nil)
		a2, h2 := m.scan(text, nil)
		if a1 != a2 || !slices.Equal(h1, h2) {
			t.Fatalf("%d bytes: the lanes found %d hits, one pass %d", len(text), len(h2), len(h1))
		}
	}
	// Every length where the lanes begin, texts dense in patterns: hits in each
	// lane's first bytes (read before the part it reports) and across its ends.
	for n := 0; n < 600; n++ {
		var b bytes.Buffer
		for b.Len() < n {
			b.WriteString(words[r.IntN(len(words))])
		}
		text := b.Bytes()[:n]
		a1, h1 := m.scanFrom(text, 0, 0, len(text), nil)
		a2, h2 := m.scan(text, nil)
		if a1 != a2 || !slices.Equal(h1, h2) {
			t.Fatalf("%d bytes: the lanes found %v, one pass %v", len(text), h2, h1)
		}
	}
}
