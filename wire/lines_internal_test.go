package wire

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// lastNewline must agree with bytes.LastIndexByte, on both sides of its walk-back.
func TestLastNewline(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		b := make([]byte, rng.IntN(2000))
		density := rng.IntN(500) + 1
		for i := range b {
			b[i] = 'a'
			if rng.IntN(density) == 0 {
				b[i] = '\n'
			}
		}
		if got, want := lastNewline(b), bytes.LastIndexByte(b, '\n'); got != want {
			t.Fatalf("lastNewline = %d, want %d (len %d)", got, want, len(b))
		}
	}
}
