package diff_test

import (
	"bytes"
	"testing"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/internal/testing/hostile"
)

// BenchmarkHostile diffs recordings shaped to make a reader do too much work: a
// message 10k levels deep (the deepest a reader parses), 100k and 10M levels deep
// (read as raw text), and a 50 MB line.
// Work must stay linear in the input (compare ns/op with MB/s of BenchmarkReadBaseline).
func BenchmarkHostile(b *testing.B) {
	cases := []struct {
		name     string
		old, new []byte
	}{
		// As deep as a recorded message may be (jsonx.MaxDepth): normalised and compared.
		{"deep-10k-leaf-differs", hostile.DeepRecording(9_999, "1"), hostile.DeepRecording(9_999, "2")},
		// Deeper: read as raw text and compared as such.
		{"deep-100k-same", hostile.DeepRecording(100_000, "1"), hostile.DeepRecording(100_000, "1")},
		{"deep-100k-leaf-differs", hostile.DeepRecording(100_000, "1"), hostile.DeepRecording(100_000, "2")},
		{"deep-10M", hostile.DeepArrayRecording(10_000_000), hostile.DeepArrayRecording(10_000_001)},
		{"line-50MB", hostile.HugeLineRecording(50 << 20), hostile.HugeLineRecording(50<<20 - 1)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.old) + len(c.new)))
			for b.Loop() {
				old, err := diff.Load(bytes.NewReader(c.old), "old", diff.Options{})
				if err != nil {
					b.Fatal(err)
				}
				nw, err := diff.Load(bytes.NewReader(c.new), "new", diff.Options{})
				if err != nil {
					b.Fatal(err)
				}
				r := diff.Compare(old, nw)
				if r.Same != bytes.Equal(c.old, c.new) {
					b.Fatalf("Same = %v", r.Same)
				}
			}
		})
	}
}
