package serve_test

import (
	"bufio"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/serve"
	"github.com/codexrec/codexrec/upgrade"
	"github.com/codexrec/codexrec/view"
	"github.com/codexrec/codexrec/wire"
)

// copyFixtures copies committed recordings of the real codex into a served directory.
func copyFixtures(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("..", "fixtures", "hermetic", n))
		if err != nil {
			t.Fatal(err) // committed: never missing
		}
		dst := filepath.Join(dir, strings.ReplaceAll(n, "/", "-"))
		if err := os.WriteFile(dst, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func start(t *testing.T, opts serve.Options) (*serve.Server, *httptest.Server) {
	t.Helper()
	if opts.Poll == 0 {
		opts.Poll = 20 * time.Millisecond
	}
	srv, err := serve.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { srv.Close(); hs.Close() }) // the server first: it ends event streams
	return srv, hs
}

func getJSON(t testing.TB, hs *httptest.Server, srv *serve.Server, path string, params url.Values, out any) int {
	t.Helper()
	if params == nil {
		params = url.Values{}
	}
	params.Set("token", srv.Token())
	resp, err := http.Get(hs.URL + path + "?" + params.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK && out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			t.Fatalf("%s: %v: %.200s", path, err, body)
		}
	}
	return resp.StatusCode
}

type sessionList struct {
	Version  int64 `json:"version"`
	Sessions []struct {
		ID     string `json:"id"`
		Name   string `json:"name"`
		Frames int    `json:"frames"`
		Live   bool   `json:"live"`
		Ended  string `json:"ended"`
	} `json:"sessions"`
}

type framesPage struct {
	Total   int `json:"total"`
	Matched int `json:"matched"`
	At      int `json:"at"`
	Frames  []struct {
		I      int    `json:"i"`
		Seq    int64  `json:"s"`
		Dir    string `json:"d"`
		Kind   string `json:"k"`
		Method string `json:"m"`
		Pair   int64  `json:"p"`
		Raw    string `json:"r"`
	} `json:"frames"`
}

func waitList(t testing.TB, hs *httptest.Server, srv *serve.Server, what string, ok func(sessionList) bool) sessionList {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var l sessionList
		getJSON(t, hs, srv, "/api/sessions", nil, &l)
		if ok(l) {
			return l
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s: %+v", what, l)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTokenRequired: no request is answered without the token; the first load with
// it sets a cookie that then suffices, and a wrong token or cookie is refused.
func TestTokenRequired(t *testing.T) {
	dir := t.TempDir()
	srv, hs := start(t, serve.Options{Dirs: []string{dir}})
	for _, p := range []string{"/", "/app.js", "/api/sessions", "/api/events", "/api/download?id=x"} {
		resp, err := http.Get(hs.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s without token: %d", p, resp.StatusCode)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("%s: CSP %q", p, csp)
		}
	}
	resp, err := http.Get(hs.URL + "/api/sessions?token=" + strings.Repeat("0", len(srv.Token())))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("wrong token: %d", resp.StatusCode)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = client.Get(hs.URL + "/?token=" + srv.Token())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cookies := resp.Cookies()
	if resp.StatusCode != http.StatusSeeOther || len(cookies) != 1 || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteStrictMode {
		t.Fatalf("first load: %d %v", resp.StatusCode, cookies)
	}
	req, _ := http.NewRequest("GET", hs.URL+"/", nil)
	req.AddCookie(cookies[0])
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), `<script src="/app.js"`) {
		t.Errorf("with the cookie: %d", resp.StatusCode)
	}
	for _, banned := range []string{"http://", "https://", "<script>", "style=", "onclick"} {
		if strings.Contains(string(page), banned) {
			t.Errorf("page holds %q: external or inline code", banned)
		}
	}
	req.Header.Set("Cookie", "codexrec_token=nope")
	resp, _ = http.DefaultClient.Do(req)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("wrong cookie: %d", resp.StatusCode)
	}
}

// TestFramesPagedAndFiltered: the server sends a page, never the whole session;
// filters and the joined pairs come from the timeline.
func TestFramesPagedAndFiltered(t *testing.T) {
	dir := t.TempDir()
	copyFixtures(t, dir, "0.171.0/approval-accept.jsonl", "0.171.0/plain.jsonl")
	srv, hs := start(t, serve.Options{Dirs: []string{dir}})
	l := waitList(t, hs, srv, "two ended sessions", func(l sessionList) bool {
		return len(l.Sessions) == 2 && l.Sessions[0].Ended != "" && l.Sessions[1].Ended != ""
	})
	var id string
	for _, s := range l.Sessions {
		if strings.Contains(s.Name, "approval-accept") {
			id = s.ID
		}
	}
	rec, err := recorder.ReadFile(filepath.Join(dir, "0.171.0-approval-accept.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var p framesPage
	getJSON(t, hs, srv, "/api/frames", url.Values{"id": {id}, "from": {"3"}, "limit": {"5"}}, &p)
	if len(p.Frames) != 5 || p.Frames[0].I != 3 || p.Total < len(rec.Frames()) {
		t.Fatalf("page: %d frames from %d of %d", len(p.Frames), p.Frames[0].I, p.Total)
	}
	getJSON(t, hs, srv, "/api/frames", url.Values{"id": {id}, "method": {"*requestApproval"}, "limit": {"500"}}, &p)
	if p.Matched != 2 || p.Frames[0].Kind != "request" || p.Frames[0].Dir != "s2c" || p.Frames[1].Kind != "response" ||
		p.Frames[0].Pair != p.Frames[1].Seq || p.Frames[1].Pair != p.Frames[0].Seq {
		t.Errorf("approval request and answer: %+v", p)
	}
	getJSON(t, hs, srv, "/api/frames", url.Values{"id": {id}, "dir": {"stderr"}}, &p)
	if want := len(rec.Frames(wire.Stderr)); p.Matched != want {
		t.Errorf("stderr rows %d, want %d", p.Matched, want)
	}
	getJSON(t, hs, srv, "/api/frames", url.Values{"id": {id}, "q": {"hello from codexrec"}, "raw": {"1"}}, &p)
	if p.Matched == 0 || !strings.Contains(strings.ToLower(p.Frames[0].Raw), "hello from codexrec") {
		t.Errorf("text filter: %+v", p)
	}
	getJSON(t, hs, srv, "/api/frames", url.Values{"id": {id}, "findings": {"1"}}, &p)
	if p.Matched != 0 {
		t.Errorf("findings only: %d rows in a recording without findings", p.Matched)
	}
	if code := getJSON(t, hs, srv, "/api/frames", url.Values{"id": {"nope"}}, nil); code != http.StatusNotFound {
		t.Errorf("unknown session: %d", code)
	}

	// A recording removed from the directory leaves the list; a file that is not a
	// recording never enters it.
	if err := os.Remove(filepath.Join(dir, "0.171.0-plain.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "other.jsonl"), []byte(`{"a":1}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitList(t, hs, srv, "the removed recording to leave", func(l sessionList) bool { return len(l.Sessions) == 1 && l.Sessions[0].ID == id })
	time.Sleep(100 * time.Millisecond)
	if l := waitList(t, hs, srv, "the list", func(sessionList) bool { return true }); len(l.Sessions) != 1 {
		t.Errorf("sessions %+v, want only the approval recording", l.Sessions)
	}
}

// secretKey is a GitHub token shape made at run time, so no scanner flags the source.
func secretKey() string {
	r := rand.New(rand.NewPCG(3, 5))
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := []byte("ghp_")
	for range 36 {
		b = append(b, alnum[r.IntN(len(alnum))])
	}
	return string(b)
}

// writeLines writes frames to a recorder.Writer; lines of recordings no codex sends
// on demand (secrets, markup) are written directly.
func writeLines(t *testing.T, w *recorder.Writer, p *wire.Pairer, seq0 int, lines []string) {
	t.Helper()
	for i, l := range lines {
		dir := wire.ClientToServer
		switch {
		case strings.HasPrefix(l, "s2c "):
			dir = wire.ServerToClient
		case strings.HasPrefix(l, "err "):
			dir = wire.Stderr
		}
		l = l[4:]
		f := &wire.Frame{Seq: int64(seq0 + i), Time: time.Duration(seq0+i) * time.Millisecond, Dir: dir, Line: []byte(l + "\n")}
		if dir != wire.Stderr {
			f.Msg = wire.Classify(f.Line)
			p.Observe(dir, &f.Msg)
		}
		if err := w.WriteFrame(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}

// TestLiveAndMasked: a recording being written appears while it is written, grows,
// ends; a secret in it (never sanitized) reaches no answer of the server, unless
// Reveal.
func TestLiveAndMasked(t *testing.T) {
	dir := t.TempDir()
	key := secretKey()
	srv, hs := start(t, serve.Options{Dirs: []string{dir}})
	waitList(t, hs, srv, "the empty list", func(l sessionList) bool { return len(l.Sessions) == 0 })

	w, err := recorder.Create(filepath.Join(dir, "live.jsonl"), recorder.Header{Started: "2026-12-01T10:00:00Z"}, recorder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var p wire.Pairer
	writeLines(t, w, &p, 1, []string{
		`c2s {"id":1,"method":"thread/start","params":{"note":"` + key + `"}}`,
		`s2c {"id":1,"result":{"thread":{"id":"th1"}}}`,
	})
	l := waitList(t, hs, srv, "the live session", func(l sessionList) bool {
		return len(l.Sessions) == 1 && l.Sessions[0].Live && l.Sessions[0].Frames == 2
	})
	id := l.Sessions[0].ID
	writeLines(t, w, &p, 3, []string{
		`s2c {"method":"item/agentMessage/delta","params":{"threadId":"th1","turnId":"u1","itemId":"i1","delta":"key ` + key + `"}}`,
		`err WARN token ` + key,
	})
	waitList(t, hs, srv, "the session to grow", func(l sessionList) bool { return len(l.Sessions) == 1 && l.Sessions[0].Frames == 4 })
	if err := w.Close(recorder.Trailer{Ended: recorder.EndClientEOF}); err != nil {
		t.Fatal(err)
	}
	l = waitList(t, hs, srv, "the session to end", func(l sessionList) bool {
		return len(l.Sessions) == 1 && !l.Sessions[0].Live && l.Sessions[0].Ended == "client-eof"
	})
	if l.Sessions[0].ID != id || l.Sessions[0].Name != "live.jsonl" {
		t.Errorf("published session: %+v (was %s)", l.Sessions[0], id)
	}

	answers := []string{}
	fetch := func(path string, v url.Values) string {
		v.Set("token", srv.Token())
		resp, err := http.Get(hs.URL + path + "?" + v.Encode())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		answers = append(answers, path)
		return string(b)
	}
	bodies := []string{
		fetch("/api/frames", url.Values{"id": {id}, "raw": {"1"}}),
		fetch("/api/frame", url.Values{"id": {id}, "seq": {"1"}}),
		fetch("/api/frame", url.Values{"id": {id}, "seq": {"3"}}),
		fetch("/api/frame", url.Values{"id": {id}, "seq": {"4"}}),
		fetch("/api/search", url.Values{"q": {"token"}}),
		fetch("/api/search", url.Values{"q": {key[4:12]}}),
		fetch("/api/download", url.Values{"id": {id}}),
		fetch("/api/diff", url.Values{"a": {id}, "b": {id}}),
		fetch("/api/sessions", url.Values{}),
	}
	for i, b := range bodies {
		if strings.Contains(b, key[4:20]) {
			t.Errorf("%s answers with the secret", answers[i])
		}
	}
	if !strings.Contains(bodies[1], "redacted") || !strings.Contains(bodies[6], "redacted") {
		t.Errorf("no placeholder in the frame or the download: %.300s / %.300s", bodies[1], bodies[6])
	}
	if strings.Contains(bodies[5], `"s":`) {
		t.Errorf("searching for the secret's text finds it: %s", bodies[5])
	}
	// The download is still a recording.
	if _, err := recorder.ReadAll(strings.NewReader(bodies[6]), "download"); err != nil {
		t.Errorf("the masked download is not a recording: %v", err)
	}

	srv2, hs2 := start(t, serve.Options{Dirs: []string{dir}, Reveal: true})
	waitList(t, hs2, srv2, "the session", func(l sessionList) bool { return len(l.Sessions) == 1 && !l.Sessions[0].Live })
	v := url.Values{"id": {id}, "seq": {"1"}, "token": {srv2.Token()}}
	resp, err := http.Get(hs2.URL + "/api/frame?" + v.Encode())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), key) {
		t.Errorf("with Reveal the frame lacks the recorded text: %.300s", b)
	}
}

// TestEventsStream: the event stream sends the list on connecting and again when a
// recording appears.
func TestEventsStream(t *testing.T) {
	dir := t.TempDir()
	srv, hs := start(t, serve.Options{Dirs: []string{dir}})
	resp, err := http.Get(hs.URL + "/api/events?token=" + srv.Token())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	events := make(chan sessionList, 16)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var l sessionList
				json.Unmarshal([]byte(d), &l)
				events <- l
			}
		}
		close(events)
	}()
	first := <-events
	if len(first.Sessions) != 0 {
		t.Fatalf("first event: %+v", first)
	}
	copyFixtures(t, dir, "0.171.0/plain.jsonl")
	timeout := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-events:
			if !ok {
				t.Fatal("stream ended")
			}
			if len(l.Sessions) == 1 && l.Sessions[0].Ended != "" {
				return
			}
		case <-timeout:
			t.Fatal("no event announced the new recording")
		}
	}
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:0": true, "[::1]:80": true, "localhost:1": true,
		":8080": false, "0.0.0.0:1": false, "192.168.1.2:80": false, "nonsense": false} {
		if got := serve.IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v", addr, got)
		}
	}
}

// TestUpgradeReport: an upgrade report page under a served directory is listed and
// served sandboxed (no script, an opaque origin); other HTML files are not listed.
func TestUpgradeReport(t *testing.T) {
	dir := t.TempDir()
	var page strings.Builder
	if err := view.WriteUpgradeHTML(&page, &upgrade.Report{From: "0.163.0", To: "0.171.0"}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "upgrade.html"), []byte(page.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "other.html"), []byte("<!DOCTYPE html><title>x</title><script>alert(1)</script>"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv, hs := start(t, serve.Options{Dirs: []string{dir}})
	var l struct {
		Reports []struct{ ID, Name string }
	}
	getJSON(t, hs, srv, "/api/sessions", nil, &l)
	if len(l.Reports) != 1 || l.Reports[0].Name != "upgrade.html" {
		t.Fatalf("reports %+v", l.Reports)
	}
	resp, err := http.Get(hs.URL + "/report?" + url.Values{"id": {l.Reports[0].ID}, "token": {srv.Token()}}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "sandbox;") || strings.Contains(csp, "script") {
		t.Errorf("report CSP %q", csp)
	}
	if !strings.Contains(string(b), "0.163.0 → 0.171.0") {
		t.Errorf("report page: %.300s", b)
	}
}
