package view_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/codexrec/codexrec/internal/testing/webdriver"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// largeRecording writes a recording of at least size bytes made of the frames of a
// real session repeated one after the other (seq and time continued), as a long
// session would have them, and reads it back.
func largeRecording(t testing.TB, src *recorder.Recording, size int64) *recorder.Recording {
	t.Helper()
	path := filepath.Join(t.TempDir(), "large.jsonl")
	w, err := recorder.Create(path, src.Header, recorder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	frames := src.Frames()
	var seq int64
	var base time.Duration
	for {
		for _, e := range frames {
			seq++
			f := &wire.Frame{Seq: seq, Time: base + e.Time, Dir: e.Dir, Line: e.Line, Msg: e.Msg}
			if err := w.WriteFrame(f); err != nil {
				t.Fatal(err)
			}
		}
		base += frames[len(frames)-1].Time
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(w.TempPath())
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() >= size {
			break
		}
	}
	if err := w.Close(recorder.Trailer{Ended: recorder.EndClientEOF}); err != nil {
		t.Fatal(err)
	}
	rec, err := recorder.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestPageLargeRecording opens the page of a 10 MiB recording: it must render without
// building a row per frame up front, grow as it scrolls, and filter. Load and filter
// times are logged against the small page's as a baseline measured in the same run.
func TestPageLargeRecording(t *testing.T) {
	src := fixture(t, "0.171.0/approval-accept.jsonl")
	big := largeRecording(t, src, 10<<20)
	smallURL, _ := writePage(t, src, "small.html")
	bigURL, bigPath := writePage(t, big, "large.html")
	fi, _ := os.Stat(bigPath)
	frames := len(big.Frames())
	t.Logf("large recording: %d frames, page %.1f MiB", frames, float64(fi.Size())/(1<<20))

	b := webdriver.StartT(t)
	load := func(url string) (total, script float64) {
		t.Helper()
		if err := b.Navigate(url); err != nil {
			t.Fatal(err)
		}
		waitFor(t, b, "the page", "document.body.dataset.ready === '1'")
		var m []float64
		if err := b.Exec(&m, `var n = performance.getEntriesByType('navigation')[0];
			return [n.loadEventEnd > 0 ? n.loadEventEnd : performance.now(), window.codexrecLoadMs];`); err != nil {
			t.Fatal(err)
		}
		return m[0], m[1]
	}
	smallTotal, smallScript := load(smallURL)
	bigTotal, bigScript := load(bigURL)
	t.Logf("load (navigation start to load event): small %.0f ms, large %.0f ms (%.1fx); page script: small %.1f ms, large %.0f ms",
		smallTotal, bigTotal, bigTotal/smallTotal, smallScript, bigScript)

	rows := domInt(t, b, `return document.querySelectorAll('#list .row').length`)
	if rows == 0 || rows > 1000 {
		t.Errorf("%d rows in the DOM after load for %d frames: not lazy", rows, frames)
	}
	// Scrolling to the end of what is there renders more.
	if err := b.Exec(nil, `window.scrollTo(0, document.body.scrollHeight)`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, b, "more rows after scrolling", fmt.Sprintf(`document.querySelectorAll('#list .row').length > %d`, rows))
	// Filtering runs over every frame (the first search builds its index) and renders
	// the first matches only.
	var ms []float64
	if err := b.Exec(&ms, `var f = document.getElementById('filter'), out = [];
		['requestApproval', 'decision', ''].forEach(function (q) {
			f.focus(); f.value = q; var t = performance.now();
			f.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));
			out.push(performance.now() - t);
		});
		return out;`); err != nil {
		t.Fatal(err)
	}
	t.Logf("filter over %d frames: first %.0f ms, second %.0f ms, clear %.0f ms", frames, ms[0], ms[1], ms[2])
	if got := domText(t, b, `return document.getElementById('status').textContent`); got == "" {
		t.Error("no status after filtering")
	}
	if got := domInt(t, b, `return document.querySelectorAll('#list .row').length`); got == 0 || got > 1000 {
		t.Errorf("%d rows after clearing the filter", got)
	}
	// A key press is handled while the page holds every frame.
	var keyMs float64
	if err := b.Exec(&keyMs, `var t = performance.now(); document.dispatchEvent(new KeyboardEvent('keydown', {key: 'n', bubbles: true}));
		return performance.now() - t;`); err != nil {
		t.Fatal(err)
	}
	t.Logf("key n (next finding, none present: scans all frames): %.1f ms", keyMs)
	shot, err := b.Screenshot()
	if err != nil {
		t.Fatal(err)
	}
	artifact(t, "view-large.png", shot)
}
