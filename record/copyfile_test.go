package record_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
)

func TestCopyFile(t *testing.T) {
	src := filepath.Join("..", "fixtures", "hermetic", codexbin.Newest, "plain.jsonl")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	z, err := sanitize.New(sanitize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	copyOf := func(data []byte, out string) (*recorder.Recording, error) {
		rd, err := recorder.NewReader(bytes.NewReader(data), "src.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		s := &record.Session{Sanitizer: z, Guard: z}
		if err := s.CopyFile(out, rd, recorder.Options{}); err != nil {
			return nil, err
		}
		return recorder.ReadFile(out)
	}
	dir := t.TempDir()
	whole, err := copyOf(b, filepath.Join(dir, "whole.jsonl"))
	orig, _ := recorder.ReadFile(src)
	if err != nil || whole.Trailer == nil || whole.Trailer.Ended != orig.Trailer.Ended || len(whole.Entries) != len(orig.Entries) {
		t.Fatalf("copy: %v; trailer %+v, %d entries; want the source's %+v, %d", err, whole.Trailer, len(whole.Entries), orig.Trailer, len(orig.Entries))
	}
	// A source with no trailer gets one that says it was cut short.
	cut := b[:bytes.LastIndex(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))+1]
	short, err := copyOf(cut, filepath.Join(dir, "cut.jsonl"))
	if err != nil || short.Trailer == nil || short.Trailer.Ended != recorder.EndError {
		t.Fatalf("copy of a cut source: %v; trailer %+v", err, short.Trailer)
	}
	// An existing target is refused, as Create refuses it.
	if _, err := copyOf(b, filepath.Join(dir, "whole.jsonl")); !errors.Is(err, recorder.ErrExists) {
		t.Errorf("copy onto an existing recording: %v; want ErrExists", err)
	}
}
