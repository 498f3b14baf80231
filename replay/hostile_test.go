package replay_test

import (
	"bytes"
	"testing"

	"github.com/codexrec/codexrec/internal/hostile"
	"github.com/codexrec/codexrec/replay"
)

// BenchmarkHostileLoad loads recordings shaped to make a reader do too much work (a
// message nested 100k levels deep, a 50 MB line) as replay scripts. Work must stay
// linear in the input.
func BenchmarkHostileLoad(b *testing.B) {
	for _, c := range []struct {
		name string
		rec  []byte
	}{
		{"deep-100k", hostile.DeepRecording(100_000, "1")},
		{"deep-10M", hostile.DeepArrayRecording(10_000_000)},
		{"line-50MB", hostile.HugeLineRecording(50 << 20)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.rec)))
			for b.Loop() {
				if _, err := replay.Load(bytes.NewReader(c.rec), c.name, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
