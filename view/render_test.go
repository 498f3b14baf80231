package view_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/view"
)

func TestRender(t *testing.T) {
	path := filepath.Join("..", "fixtures", "hermetic", codexbin.Newest, "plain.jsonl")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	render := func(data []byte) (string, error) {
		rd, err := recorder.NewReader(bytes.NewReader(data), "plain.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		err = view.Render(rd, "plain.jsonl", &view.Text{W: &out})
		return out.String(), err
	}
	whole, err := render(b)
	if err != nil || !strings.Contains(whole, "turn/start") {
		t.Fatalf("Render: %v\n%s", err, whole)
	}
	// A recording cut in the middle of a line (a killed writer's): what came before
	// is written; the cut line is the reader's problem to report, not an error.
	lines := bytes.SplitAfter(b, []byte("\n"))
	cut := bytes.Join(lines[:len(lines)/2], nil)
	cut = append(cut, lines[len(lines)/2][:5]...)
	part, err := render(cut)
	if err != nil || part == "" || len(part) >= len(whole) {
		t.Errorf("Render of a cut recording: error %v, %d of %d bytes written", err, len(part), len(whole))
	}
}
