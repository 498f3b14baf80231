package serve_test

import (
	"fmt"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/codexrec/codexrec/internal/testing/webdriver"
	"github.com/codexrec/codexrec/serve"
)

// TestBrowserLargeRecording opens a 10 MiB recording (about 23,000 frames) in the
// page: the DOM holds only the rows in view, scrolling to the middle fetches that
// page, a text filter runs on the server. Times are logged against a small
// recording's in the same run, as a ratio; nothing is asserted about speed.
func TestBrowserLargeRecording(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and serves a 10 MiB recording")
	}
	b := webdriver.StartT(t)
	dir := t.TempDir()
	largeRecording(t, dir, 10<<20)
	copyFixtures(t, dir, "0.171.0/plain.jsonl")
	srv, err := serve.New(serve.Options{Dirs: []string{dir}, Poll: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer func() { srv.Close(); hs.Close() }() // the server first: it ends the page's event stream
	l := waitList(t, hs, srv, "both sessions read", func(l sessionList) bool {
		return len(l.Sessions) == 2 && l.Sessions[0].Ended != "" && l.Sessions[1].Ended != ""
	})
	if err := b.Navigate(hs.URL + "/?token=" + srv.Token()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, b, "the list", "document.querySelectorAll('#sessions li.sess').length === 2")

	open := func(name string) time.Duration {
		start := time.Now()
		js[any](t, b, `(`+sessionLi(name)+`).querySelector('.name').click(); return null`)
		waitFor(t, b, name+" rows", `document.querySelector('#info h2') && document.querySelector('#info h2').textContent === `+fmt.Sprintf("%q", name)+
			` && document.querySelectorAll('#rows .row[data-seq]').length > 10`)
		return time.Since(start)
	}
	small := open("0.171.0-plain.jsonl")
	large := open("large.jsonl")
	total := js[float64](t, b, `return +document.getElementById('matched').textContent.split(' ')[0]`)
	if total < 20000 {
		t.Fatalf("the large session shows %v rows", total)
	}
	if n := js[float64](t, b, `return document.querySelectorAll('#rows .row').length`); n > 200 {
		t.Errorf("%v rows in the DOM for a list of %v: not windowed", n, total)
	}
	start := time.Now()
	js[any](t, b, `const l = document.getElementById('list'); l.scrollTop = l.scrollHeight / 2; return null`)
	mid := int(total / 2)
	waitFor(t, b, "the middle rows", fmt.Sprintf(`[...document.querySelectorAll('#rows .row[data-seq]')].some(r => Math.abs(+r.dataset.seq - %d) < 200)`, mid))
	scroll := time.Since(start)
	if n := js[float64](t, b, `return document.querySelectorAll('#rows .row').length`); n > 200 {
		t.Errorf("%v rows in the DOM after scrolling", n)
	}
	var id string
	for _, s := range l.Sessions {
		if s.Name == "large.jsonl" {
			id = s.ID
		}
	}
	var want framesPage
	getJSON(t, hs, srv, "/api/frames", url.Values{"id": {id}, "q": {"printed: hello"}, "limit": {"1"}}, &want)
	if want.Matched == 0 || want.Matched >= int(total) {
		t.Fatalf("the text filter matches %d of %v", want.Matched, total)
	}
	start = time.Now()
	js[any](t, b, `const q = document.getElementById('f-q'); q.value = 'printed: hello'; q.dispatchEvent(new Event('input')); return null`)
	waitFor(t, b, "the filtered rows", fmt.Sprintf(`document.getElementById('matched').textContent.startsWith('%d of ') && document.querySelectorAll('#rows .row[data-seq]').length > 0`, want.Matched))
	filter := time.Since(start)
	t.Logf("open: small %v, 10 MiB %v (%.1fx); scroll to the middle %v; text filter over every frame %v", small.Round(time.Millisecond),
		large.Round(time.Millisecond), float64(large)/float64(small), scroll.Round(time.Millisecond), filter.Round(time.Millisecond))
}
