package check_test

import (
	"bytes"
	"testing"

	"github.com/codexrec/codexrec/check"
	"github.com/codexrec/codexrec/internal/testing/hostile"
)

// BenchmarkHostile checks recordings shaped to make a reader do too much work: a
// message nested 100k levels deep and a 50 MB line (schema validation off: it has
// benchmarks of its own). Work must stay linear in the input.
func BenchmarkHostile(b *testing.B) {
	for _, c := range hostile.Readers() {
		b.Run(c.Name, func(b *testing.B) {
			b.SetBytes(int64(len(c.Rec)))
			ck := &check.Checker{}
			for b.Loop() {
				res, err := ck.Check(bytes.NewReader(c.Rec), c.Name)
				if err != nil || res.Frames != 1 {
					b.Fatal(err, res)
				}
			}
		})
	}
}
