package replay_test

import (
	"bytes"
	"testing"

	"github.com/codexrec/codexrec/internal/testing/hostile"
	"github.com/codexrec/codexrec/replay"
)

// BenchmarkHostileLoad loads recordings shaped to make a reader do too much work (a
// message nested 100k levels deep, a 50 MB line) as replay scripts. Work must stay
// linear in the input.
func BenchmarkHostileLoad(b *testing.B) {
	for _, c := range hostile.Readers() {
		b.Run(c.Name, func(b *testing.B) {
			b.SetBytes(int64(len(c.Rec)))
			for b.Loop() {
				if _, err := replay.Load(bytes.NewReader(c.Rec), c.Name, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
