package export_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/codexrec/codexrec/export"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestStreamedGolden: the OTLP document and the JSON Lines, which WriteFiles and
// Write write a span or a message at a time, are byte for byte what encoding/json
// wrote for the document and the lines whole (the goldens were checked equal to
// that output when the streaming writers replaced it).
func TestStreamedGolden(t *testing.T) {
	paths := []string{"../fixtures/hermetic/0.171.0/approval-decline.jsonl", "../fixtures/hermetic/0.171.0/ws/plain.jsonl"}
	for _, f := range []export.Format{export.OTLP, export.JSONL} {
		var got bytes.Buffer
		if err := export.WriteFiles(&got, f, paths, export.Options{Creator: "0.1.0-dev"}, nil); err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", "fixtures."+string(f)+".golden")
		if *update {
			if err := os.WriteFile(golden, got.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s differs from %s (%d vs %d bytes); -update rewrites it", f, golden, got.Len(), len(want))
		}
	}
}
