package recorder_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// TestCloseAcrossWriteback: a recording whose last bytes (the buffered tail and
// the trailer, written by Close) cross the next writeback mark closes cleanly,
// with no writeback left running on the file Close closes. Under -race this ran
// into a data race between the writeback's Fd and Close's; the sizes step over
// the 4 MB mark so that, for some of them, Close's own writes cross it.
func TestCloseAcrossWriteback(t *testing.T) {
	dir := t.TempDir()
	text := bytes.Repeat([]byte("x"), 60<<10)
	for n := 62; n <= 72; n++ {
		path := filepath.Join(dir, fmt.Sprintf("r%d.jsonl", n))
		w, err := recorder.Create(path, recorder.Header{}, recorder.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			l := []byte(fmt.Sprintf(`{"method":"n","params":{"text":"%s"}}`, text))
			if err := w.WriteFrame(&wire.Frame{Seq: int64(i + 1), Dir: wire.ServerToClient, Line: l, Msg: wire.Classify(l)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(recorder.Trailer{Ended: recorder.EndClientEOF}); err != nil {
			t.Fatalf("%d frames: %v", n, err)
		}
		rec, err := recorder.ReadFile(path)
		if err != nil || rec.Trailer == nil || len(rec.Frames(wire.ServerToClient)) != n {
			t.Fatalf("%d frames: read back %v", n, err)
		}
	}
}
