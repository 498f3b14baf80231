package view_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/codexrec/codexrec/internal/hostile"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/view"
)

// BenchmarkHostile renders recordings shaped to make a reader do too much work (a
// message nested 100k levels deep, a 50 MB line) as show's text and view's page.
// Work must stay linear in the input.
func BenchmarkHostile(b *testing.B) {
	for _, c := range []struct {
		name string
		rec  []byte
	}{
		{"deep-100k", hostile.DeepRecording(100_000, "1")},
		{"deep-10M", hostile.DeepArrayRecording(10_000_000)},
		{"line-50MB", hostile.HugeLineRecording(50 << 20)},
	} {
		b.Run(c.name+"/text", func(b *testing.B) {
			b.SetBytes(int64(len(c.rec)))
			for b.Loop() {
				rd, err := recorder.NewReader(bytes.NewReader(c.rec), c.name)
				if err != nil {
					b.Fatal(err)
				}
				t := &view.Text{W: io.Discard, Raw: true}
				t.Header(c.name, rd.Header())
				for e, err := range rd.Entries() {
					if err != nil {
						b.Fatal(err)
					}
					t.Entry(&e)
				}
				t.Trailer(rd.Trailer())
			}
		})
		b.Run(c.name+"/html", func(b *testing.B) {
			b.SetBytes(int64(len(c.rec)))
			for b.Loop() {
				rec, err := recorder.ReadAll(bytes.NewReader(c.rec), c.name)
				if err != nil {
					b.Fatal(err)
				}
				if err := view.WriteHTML(io.Discard, rec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
