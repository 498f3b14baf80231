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
		// Probes hold probing for reading; the writer is closed (the file published,
		// its lock let go) only once no probe is under way and none can start.
		var probing sync.RWMutex
		var stop atomic.Bool
		var orphaned atomic.Value
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				probing.RLock()
				if stop.Load() {
					probing.RUnlock()
					return
				}
				matches, _ := filepath.Glob(filepath.Join(dir, ".r.jsonl.*.tmp"))
				for _, m := range matches {
					if gone, known := recorder.WriterGone(m); known && gone {
						orphaned.Store(m)
					}
				}
				probing.RUnlock()
			}
		}()
		w, err := recorder.Create(path, recorder.Header{}, recorder.Options{Force: true})
		if err != nil {
			t.Fatal(err)
		}
		probing.Lock()
		stop.Store(true)
		probing.Unlock()
		wg.Wait()
		if err := w.Close(recorder.Trailer{Ended: recorder.EndClientEOF}); err != nil {
			t.Fatal(err)
		}
		if m := orphaned.Load(); m != nil {
			t.Fatalf("round %d: %s, being written, was reported as having lost its writer", i, m)
		}
	}
}
