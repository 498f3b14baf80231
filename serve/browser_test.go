package serve_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codexrec/codexrec/internal/testing/codextest"
	"github.com/codexrec/codexrec/internal/testing/webdriver"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// codexrecBin builds the codexrec command once per test process: the browser test
// runs codexrec serve and codexrec record as users do.
func codexrecBin(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "codexrec-serve-test-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "codexrec")
		out, err := exec.Command("go", "build", "-o", builtBin, "../cmd/codexrec").CombinedOutput()
		if err != nil {
			buildErr = err
			t.Logf("%s", out)
		}
	})
	if buildErr != nil {
		t.Fatalf("building codexrec: %v", buildErr)
	}
	return builtBin
}

// hostileName is a recording's file name made of markup.
const hostileName = `x<img src=x onerror="window.__injected=9">.jsonl`

// writeHostile writes a recording whose content tries to break out of the page. A
// recording can hold anything (hand-edited, another client's), so it is written
// directly.
func writeHostile(t *testing.T, dir string) {
	t.Helper()
	w, err := recorder.Create(filepath.Join(dir, hostileName), recorder.Header{Started: "2026-12-01T09:00:00Z",
		Scenario: "<script>window.__injected=7</script>"}, recorder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var p wire.Pairer
	writeLines(t, w, &p, 1, []string{
		`c2s {"id":1,"method":"turn/start","params":{"threadId":"t1","input":[{"type":"text","text":"</script><script>window.__injected=1</script>"}]}}`,
		`s2c {"method":"item/agentMessage/delta","params":{"threadId":"t1","turnId":"u1","itemId":"i1","delta":"<img src=x onerror=\"window.__injected=2\">"}}`,
		`err <!--<script>window.__injected=3</script>-->`,
		`s2c </script><svg onload="window.__injected=4">`,
		`s2c {"method":"<script>window.__injected=5</script>","params":{"text":"line\u2028separator"}}`,
		`s2c {"id":1,"result":{"turn":{"id":"u1","note":"]]></script><iframe src=javascript:window.__injected=6>"}}}`,
	})
	if err := w.WriteEntry(recorder.Entry{Type: recorder.TypeFinding, Seq: 2, Dir: wire.ServerToClient, Rule: "<b>rule</b>",
		Pointer: "/params/delta", Reason: "</script><script>window.__injected=8</script>"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(recorder.Trailer{Ended: recorder.EndClientEOF}); err != nil {
		t.Fatal(err)
	}
}

func waitFor(t *testing.T, b *webdriver.Session, what, cond string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var ok bool
		if err := b.Exec(&ok, "return !!("+cond+")"); err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			var body string
			b.Exec(&body, "return document.body.innerText.slice(0, 2000)")
			t.Fatalf("timed out waiting for %s (%s); the page says:\n%s", what, cond, body)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func js[T any](t *testing.T, b *webdriver.Session, script string, args ...any) T {
	t.Helper()
	var v T
	if err := b.Exec(&v, script, args...); err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	return v
}

// click clicks the element css selects. The list redraws its rows as the session
// grows, so an element found may be replaced before the click lands: find it again.
func click(t *testing.T, b *webdriver.Session, css string) {
	t.Helper()
	var err error
	for range 5 {
		var e webdriver.Element
		if e, err = b.Find(css); err == nil {
			if err = e.Click(); err == nil {
				return
			}
		}
		if !strings.Contains(err.Error(), "stale element") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("click %s: %v", css, err)
}

// sessionLi is a script expression for the session in the list whose name holds
// fragment.
func sessionLi(fragment string) string {
	q, _ := json.Marshal(fragment)
	return `[...document.querySelectorAll('#sessions li.sess')].find(li => li.querySelector('.name').textContent.includes(` + string(q) + `))`
}

// TestBrowserInspector drives the page in the real Chromium against codexrec serve:
// it lists the sessions; a session recorded by codexrec record from the real codex
// (fake model) while the page is open appears, grows and ends; search finds a frame;
// the diff of two sessions renders; nothing from a hostile recording runs.
func TestBrowserInspector(t *testing.T) {
	codex := codextest.Binary(t, "0.171.0")
	b := webdriver.StartT(t)
	bin := codexrecBin(t)
	dir := t.TempDir()
	copyFixtures(t, dir, "0.171.0/approval-accept.jsonl", "0.171.0/approval-decline.jsonl", "0.163.0/plain.jsonl")
	writeHostile(t, dir)

	srv := exec.Command(bin, "serve", "--poll", "50ms", dir)
	out, _ := srv.StdoutPipe()
	var srvErr strings.Builder
	srv.Stderr = &syncWriter{w: &srvErr}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- srv.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("codexrec serve after SIGINT: %v", err)
			}
		case <-time.After(10 * time.Second):
			srv.Process.Kill()
			t.Error("codexrec serve did not stop on SIGINT")
		}
	})
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(addr, "http://127.0.0.1:") || !strings.Contains(addr, "?token=") {
		t.Fatalf("serve printed %q (%v); stderr %s", addr, err, srvErr.String())
	}
	addr = strings.TrimSpace(addr)
	base := addr[:strings.Index(addr, "/?token=")]

	// Without the token: nothing.
	if err := b.Navigate(base + "/"); err != nil {
		t.Fatal(err)
	}
	if txt := js[string](t, b, "return document.body.innerText"); !strings.HasPrefix(txt, "forbidden") {
		t.Errorf("without the token the page says %q", txt)
	}
	if err := b.Navigate(addr); err != nil {
		t.Fatal(err)
	}
	waitFor(t, b, "the four sessions", "document.body.dataset.ready === '1' && document.querySelectorAll('#sessions li.sess').length === 4")
	if u := js[string](t, b, "return location.href"); strings.Contains(u, "token") {
		t.Errorf("the token stays in the address bar: %s", u)
	}

	// A session recorded while the page is open appears, grows and ends.
	env, _ := codextest.Env(t)
	live := filepath.Join(dir, "live.jsonl")
	rec := exec.Command(bin, append([]string{"record", "-o", live, "--", codex}, codextest.FakeProviderArgs("http://127.0.0.1:9/v1")...)...)
	rec.Dir, rec.Env = t.TempDir(), env
	stdin, _ := rec.StdinPipe()
	recOut, _ := rec.StdoutPipe()
	var recErr strings.Builder
	rec.Stderr = &syncWriter{w: &recErr}
	if err := rec.Start(); err != nil {
		t.Fatal(err)
	}
	defer rec.Process.Kill()
	go io.Copy(io.Discard, recOut)
	io.WriteString(stdin, `{"id":1,"method":"initialize","params":{"clientInfo":{"name":"codexrec-browser-test","title":"t","version":"1"}}}`+"\n"+
		`{"method":"initialized"}`+"\n")
	waitFor(t, b, "the live session in the list", `(() => { const li = `+sessionLi("live.jsonl")+`; return li && li.classList.contains('live') && +li.dataset.frames >= 2 })()`)
	if _, err := os.Stat(live); err == nil {
		t.Fatal("the recording was already published: the page did not show a live session")
	}
	if err := js[any](t, b, `const li = `+sessionLi("live.jsonl")+`; li.querySelector('.name').click(); return null`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, b, "the initialize answer in the live session", `[...document.querySelectorAll('#rows .row')].some(r => r.textContent.includes('initialize') && r.textContent.includes('↩'))`)
	before := js[float64](t, b, `return +(`+sessionLi("live.jsonl")+`).dataset.frames`)
	io.WriteString(stdin, `{"id":2,"method":"thread/start","params":{}}`+"\n")
	waitFor(t, b, "the session to grow by thread/start", `[...document.querySelectorAll('#rows .row')].some(r => r.textContent.includes('thread/start') && r.textContent.includes('↩'))`)
	if after := js[float64](t, b, `return +(`+sessionLi("live.jsonl")+`).dataset.frames`); after <= before {
		t.Errorf("frames %v after thread/start, %v before", after, before)
	}
	stdin.Close()
	if err := rec.Wait(); err != nil {
		t.Fatalf("record: %v\n%s", err, recErr.String())
	}
	waitFor(t, b, "the live session to end", `(() => { const li = `+sessionLi("live.jsonl")+`; return li && !li.classList.contains('live') && li.textContent.includes('client-eof') })()`)
	if _, err := os.Stat(live); err != nil {
		t.Fatalf("record did not publish: %v", err)
	}
	click(t, b, `#rows .row[data-seq="1"] .seq`)
	waitFor(t, b, "the initialize request's JSON", `document.querySelector('#detail pre') && document.querySelector('#detail pre').textContent.includes('codexrec-browser-test')`)
	// Keys: j moves to the next frame, p to the joined one.
	if err := b.Keys("j"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, b, "frame 2 selected by j", `document.querySelector('#detail .dhead') && document.querySelector('#detail .dhead').textContent.startsWith('#2 ')`)
	answer := js[string](t, b, `return document.querySelector('#rows .row[data-seq="1"] .pair').textContent.replace(/^\D+/, '')`)
	if err := b.Keys("kp"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, b, "the initialize answer selected by p", `document.querySelector('#detail .dhead') && document.querySelector('#detail .dhead').textContent.startsWith('#`+answer+` ') && document.querySelector('#detail .dhead').textContent.includes('initialize')`)
	click(t, b, `#rows .row[data-seq="1"] .seq`)
	waitFor(t, b, "frame 1 again", `document.querySelector('#detail .dhead') && document.querySelector('#detail .dhead').textContent.startsWith('#1 ')`)
	shot(t, b, "serve-live.png")

	// Actions: the replay command to copy, the download (fetched by the page itself,
	// with its cookie).
	if got := js[string](t, b, `return document.getElementById('replay').value`); got != "codexrec replay "+live {
		t.Errorf("replay command %q", got)
	}
	click(t, b, "#copy")
	waitFor(t, b, "the copy to be done", `document.getElementById('copied').textContent === 'copied'`)
	var first string
	if err := b.Exec(&first, `return fetch(document.getElementById('download').href).then(r => r.text()).then(t => t.split('\n')[0])`); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(first, `{"type":"header"`) {
		t.Errorf("the download starts with %q, not a recording's header", first)
	}

	// Search across sessions finds a frame, and opens it.
	search, err := b.Find("#search")
	if err != nil {
		t.Fatal(err)
	}
	if err := search.Type("hello from codexrec" + webdriver.KeyEnter); err != nil {
		t.Fatal(err)
	}
	waitFor(t, b, "search hits", `document.querySelectorAll('#hits li').length > 0`)
	hits := js[[]string](t, b, `return [...document.querySelectorAll('#hits li .where')].map(e => e.textContent)`)
	if !strings.Contains(strings.Join(hits, "\n"), "approval-accept") {
		t.Errorf("hits %q lack the approval session", hits)
	}
	click(t, b, "#hits li")
	waitFor(t, b, "the hit's frame opened", `document.querySelector('#detail pre') && document.querySelector('#detail pre').textContent.toLowerCase().includes('hello from codexrec')`)
	waitFor(t, b, "the hit's row selected", `document.querySelector('#rows .row.sel')`)
	shot(t, b, "serve-search.png")

	// Diff of two sessions.
	for _, n := range []string{"approval-accept", "approval-decline"} {
		js[any](t, b, `(`+sessionLi(n)+`).querySelector('input[type=checkbox]').click(); return null`)
	}
	waitFor(t, b, "the diff button", `!document.getElementById('diff-btn').disabled`)
	click(t, b, "#diff-btn")
	waitFor(t, b, "the diff", `document.querySelectorAll('#diff-lanes tr.step').length > 0`)
	report := js[string](t, b, `return document.getElementById('diff-report').textContent`)
	if !strings.Contains(report, "decline") && !strings.Contains(report, "accept") {
		t.Errorf("the diff report does not name the differing decision:\n%s", report)
	}
	if n := js[float64](t, b, `return document.querySelectorAll('#diff-lanes tr.mkchanged, #diff-lanes tr.mkadded, #diff-lanes tr.mkremoved').length`); n == 0 {
		t.Error("the diff of accept and decline marks no step as changed, added or removed")
	}
	shot(t, b, "serve-diff.png")

	// The hostile recording: shown as text, nothing runs.
	js[any](t, b, `(`+sessionLi("onerror")+`).querySelector('.name').click(); return null`)
	waitFor(t, b, "the hostile session's rows", `document.querySelectorAll('#rows .row[data-seq]').length === 6`)
	for seq := 1; seq <= 6; seq++ {
		click(t, b, `#rows .row[data-seq="`+string(rune('0'+seq))+`"] .seq`)
		waitFor(t, b, "the frame", `document.querySelector('#detail .dhead') && document.querySelector('#detail .dhead').textContent.startsWith('#`+string(rune('0'+seq))+` ')`)
	}
	click(t, b, "#f-findings")
	waitFor(t, b, "only the frame with a finding", `document.getElementById('matched').textContent.startsWith('1 of ') && document.querySelector('#rows .row[data-seq="2"] .badge.finding')`)
	click(t, b, "#f-findings")
	click(t, b, "#f-raw")
	waitFor(t, b, "raw rows", `[...document.querySelectorAll('#rows .row')].some(r => r.textContent.includes('</script><svg'))`)
	search, _ = b.Find("#search")
	search.Type(webdriver.KeyEscape)
	js[any](t, b, `document.getElementById('search').value = ''; return null`)
	search.Type("injected" + webdriver.KeyEnter)
	waitFor(t, b, "hostile search hits", `[...document.querySelectorAll('#hits li')].some(li => li.textContent.includes('<script>'))`)
	if got := js[string](t, b, `return String(window.__injected)`); got != "undefined" {
		t.Fatalf("injected script ran: window.__injected = %s", got)
	}
	if n := js[float64](t, b, `return document.scripts.length + document.querySelectorAll('img, svg, iframe, object, embed').length`); n != 1 {
		t.Errorf("the DOM holds %v scripts and embedded elements, want only the page's script", n)
	}
	body := js[string](t, b, `return document.body.innerText`)
	for _, want := range []string{hostileName, `<script>window.__injected=5</script>`, `</script><svg onload="window.__injected=4">`} {
		if !strings.Contains(body, want) {
			t.Errorf("page text lacks %q", want)
		}
	}
	if got := js[string](t, b, `return document.title`); got != "codexrec serve" {
		t.Errorf("title %q", got)
	}
}

// shot saves a screenshot under out/test-artifacts, and to $CODEXREC_SCREENSHOT for
// the first one taken when that is set.
func shot(t *testing.T, b *webdriver.Session, name string) {
	t.Helper()
	png, err := b.Screenshot()
	if err != nil {
		t.Fatal(err)
	}
	if p := os.Getenv("CODEXREC_SCREENSHOT"); p != "" && !screenshotTaken {
		screenshotTaken = true
		if err := os.WriteFile(p, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", p)
	}
	dir := filepath.Join("..", "out", "test-artifacts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		dir = t.TempDir()
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Log(err)
		return
	}
	abs, _ := filepath.Abs(p)
	t.Logf("artifact: %s", abs)
}

var screenshotTaken bool

// syncWriter serialises writes to w (a process's stderr copied by its own goroutine).
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
