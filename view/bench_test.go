package view_test

import (
	"io"
	"os"
	"testing"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/view"
)

// The view benchmarks run over a 10 MiB recording (a real session repeated). Their
// baseline is BenchmarkReadFile10MB, reading the same recording: report the renderers
// as ratios to it.
func bench10MB(b *testing.B) (*recorder.Recording, string) {
	b.Helper()
	src := fixture(b, "0.171.0/approval-accept.jsonl")
	big := largeRecording(b, src, 10<<20)
	return big, big.Name // the file largeRecording wrote
}

func BenchmarkReadFile10MB(b *testing.B) {
	_, path := bench10MB(b)
	fi, _ := os.Stat(path)
	b.SetBytes(fi.Size())
	b.ResetTimer()
	for b.Loop() {
		if _, err := recorder.ReadFile(path); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteHTML10MB(b *testing.B) {
	rec, path := bench10MB(b)
	fi, _ := os.Stat(path)
	b.SetBytes(fi.Size())
	b.ResetTimer()
	for b.Loop() {
		if err := view.WriteHTML(io.Discard, rec); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkText10MB(b *testing.B) {
	rec, path := bench10MB(b)
	fi, _ := os.Stat(path)
	b.SetBytes(fi.Size())
	b.ResetTimer()
	for b.Loop() {
		t := &view.Text{W: io.Discard}
		t.Header(rec.Name, rec.Header)
		for i := range rec.Entries {
			t.Entry(&rec.Entries[i])
		}
		t.Trailer(rec.Trailer)
	}
}
