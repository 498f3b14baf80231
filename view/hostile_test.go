package view_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/codexrec/codexrec/internal/testing/hostile"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/view"
)

// BenchmarkHostile renders recordings shaped to make a reader do too much work (a
// message nested 100k levels deep, a 50 MB line) as show's text and view's page.
// Work must stay linear in the input.
func BenchmarkHostile(b *testing.B) {
	for _, c := range hostile.Readers() {
		b.Run(c.Name+"/text", func(b *testing.B) {
			b.SetBytes(int64(len(c.Rec)))
			for b.Loop() {
				rd, err := recorder.NewReader(bytes.NewReader(c.Rec), c.Name)
				if err != nil {
					b.Fatal(err)
				}
				t := &view.Text{W: io.Discard, Raw: true}
				t.Header(c.Name, rd.Header())
				for e, err := range rd.Entries() {
					if err != nil {
						b.Fatal(err)
					}
					t.Entry(&e)
				}
				t.Trailer(rd.Trailer())
			}
		})
		b.Run(c.Name+"/html", func(b *testing.B) {
			b.SetBytes(int64(len(c.Rec)))
			for b.Loop() {
				rec, err := recorder.ReadAll(bytes.NewReader(c.Rec), c.Name)
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
