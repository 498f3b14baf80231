package recorder_test

import (
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/codexrec/codexrec/recorder"
)

// A reader that finds a temporary file the moment it appears never takes its writer
// for dead: the file is locked before it can be seen (show --follow once ended a live
// session this way, probing between the file's creation and its lock).
func TestNewRecordingNeverLooksOrphaned(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no writer lock on Windows")
	}
	dir := t.TempDir()
	for i := range 100 {
		path := filepath.Join(dir, "r.jsonl")
		var stop atomic.Bool
		var orphaned atomic.Value
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				matches, _ := filepath.Glob(filepath.Join(dir, ".r.jsonl.*.tmp"))
				for _, m := range matches {
					if gone, known := recorder.WriterGone(m); known && gone {
						orphaned.Store(m)
					}
				}
			}
		}()
		w, err := recorder.Create(path, recorder.Header{}, recorder.Options{Force: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(recorder.Trailer{Ended: recorder.EndClientEOF}); err != nil {
			t.Fatal(err)
		}
		stop.Store(true)
		wg.Wait()
		if m := orphaned.Load(); m != nil {
			t.Fatalf("round %d: %s, being written, was reported as having lost its writer", i, m)
		}
	}
}
