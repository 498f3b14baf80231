package recorder_test

import (
	"bytes"
	"testing"

	"github.com/codexrec/codexrec/internal/testing/hostile"
	"github.com/codexrec/codexrec/recorder"
)

// BenchmarkHostile reads recordings shaped to make a reader do too much work: a
// message nested 100k levels deep and a 50 MB line. MB/s must stay in the range of
// an ordinary recording's (work linear in the input).
func BenchmarkHostile(b *testing.B) {
	for _, c := range hostile.Readers() {
		b.Run(c.Name, func(b *testing.B) {
			b.SetBytes(int64(len(c.Rec)))
			for b.Loop() {
				rec, err := recorder.ReadAll(bytes.NewReader(c.Rec), c.Name)
				if err != nil || len(rec.Frames()) != 1 {
					b.Fatal(err, rec)
				}
			}
		})
	}
}
