package view_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/internal/testing/webdriver"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// hostileLines are frames whose content tries to break out of the page. The real
// binary echoes user text, but a recording can hold anything (it may be hand-edited
// or come from another client), so these are written directly.
var hostileLines = []struct {
	dir  wire.Direction
	line string
}{
	{wire.ClientToServer, `{"id":1,"method":"turn/start","params":{"threadId":"t1","input":[{"type":"text","text":"</script><script>window.__injected=1</script>"}]}}`},
	{wire.ServerToClient, `{"method":"item/agentMessage/delta","params":{"threadId":"t1","turnId":"u1","itemId":"i1","delta":"<img src=x onerror=\"window.__injected=2\">"}}`},
	{wire.Stderr, `<!--<script>window.__injected=3</script>-->`},
	{wire.ServerToClient, `</script><svg onload="window.__injected=4">`},
	{wire.ServerToClient, `{"method":"<script>window.__injected=5</script>","params":{"text":"line\u2028separator"}}`},
	{wire.ServerToClient, `{"id":1,"result":{"turn":{"id":"u1","note":"]]></script><script>window.__injected=6</script>"}}}`},
}

func hostileRecording(t *testing.T) *recorder.Recording {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hostile.jsonl")
	w, err := recorder.Create(path, recorder.Header{Scenario: "<script>window.__injected=7</script>"}, recorder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var p wire.Pairer
	for i, h := range hostileLines {
		f := &wire.Frame{Seq: int64(i + 1), Time: time.Duration(i) * time.Millisecond, Dir: h.dir, Line: []byte(h.line + "\n")}
		if h.dir != wire.Stderr {
			f.Msg = wire.Classify(f.Line)
			p.Observe(h.dir, &f.Msg)
		}
		if err := w.WriteFrame(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteEntry(recorder.Entry{Type: recorder.TypeFinding, Seq: 2, Dir: wire.ServerToClient, Rule: "<b>rule</b>",
		Pointer: "/params/delta", Reason: "</script><script>window.__injected=8</script>"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(recorder.Trailer{Ended: recorder.EndClientEOF}); err != nil {
		t.Fatal(err)
	}
	rec, err := recorder.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rec.Name = `x</title><script>window.__injected=9</script>.jsonl`
	return rec
}

// TestPageEscapesRecordedMarkup: markup and </script> in a recording are shown as
// text and run nothing.
func TestPageEscapesRecordedMarkup(t *testing.T) {
	rec := hostileRecording(t)
	url, path := writePage(t, rec, "hostile.html")
	page := string(mustReadFile(t, path))
	if n := strings.Count(strings.ToLower(page), "<script"); n != 2 {
		t.Errorf("page source has %d <script tags, want 2 (data and code)", n)
	}

	b := webdriver.StartT(t)
	if err := b.Navigate(url); err != nil {
		t.Fatal(err)
	}
	waitFor(t, b, "the page", "document.body.dataset.ready === '1'")
	if got := domText(t, b, `return String(window.__injected)`); got != "undefined" {
		t.Fatalf("injected script ran: window.__injected = %s", got)
	}
	if n := domInt(t, b, `return document.scripts.length + document.querySelectorAll('img, svg, iframe, object').length`); n != 2 {
		t.Errorf("the DOM holds %d scripts and embedded elements, want only the page's 2 scripts", n)
	}
	// The text is shown, as text.
	body := domText(t, b, `return document.body.innerText`)
	for _, want := range []string{
		`</script><script>window.__injected=1</script>`,
		`<img src=x onerror=`,
		`<!--<script>window.__injected=3</script>-->`,
		`<script>window.__injected=5</script>`,
		`x</title><script>window.__injected=9</script>.jsonl`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page text lacks %q", want)
		}
	}
	if got := domText(t, b, `return document.title`); !strings.Contains(got, "</title><script>") {
		t.Errorf("title %q does not show the file name as text", got)
	}
	// Expanded, the finding's reason and the raw line are text too.
	row, err := b.Find(`.row[data-seq="2"]`)
	if err != nil {
		t.Fatal(err)
	}
	if err := row.Click(); err != nil {
		t.Fatal(err)
	}
	if got := domText(t, b, `return document.querySelector('.row[data-seq="2"] + .detail .note').textContent`); !strings.Contains(got, `</script><script>window.__injected=8</script>`) {
		t.Errorf("finding note = %q", got)
	}
	row, err = b.Find(`.row[data-seq="4"]`)
	if err != nil {
		t.Fatal(err)
	}
	if err := row.Click(); err != nil {
		t.Fatal(err)
	}
	if got := domText(t, b, `return document.querySelector('.row[data-seq="4"] + .detail pre').textContent`); got != `</script><svg onload="window.__injected=4">` {
		t.Errorf("expanded raw frame = %q", got)
	}
	if got := domText(t, b, `return String(window.__injected)`); got != "undefined" {
		t.Fatalf("injected script ran after expanding: window.__injected = %s", got)
	}
	shot, err := b.Screenshot()
	if err != nil {
		t.Fatal(err)
	}
	artifact(t, "view-hostile.png", shot)
}
