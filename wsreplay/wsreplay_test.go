package wsreplay_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/internal/testing/wstest"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
	"github.com/codexrec/codexrec/wsproxy"
	"github.com/codexrec/codexrec/wsrecord"
	"github.com/codexrec/codexrec/wsreplay"
)

// recordRun records clients driven by drive against a real codex version, one
// recording per connection, and returns the recordings in connection order.
func recordRun(t *testing.T, version string, header http.Header, drive func(addr wsproxy.Addr, work string)) []string {
	t.Helper()
	codex := wstest.Prepare(t, version, wstest.TurnModel())
	dir := t.TempDir()
	rec := &wsrecord.Recorder{Dir: dir}
	run, err := wsrecord.Start(wsrecord.Options{Listen: "ws://127.0.0.1:0", Command: codex.Args, Env: codex.Env, Dir: codex.Work}, rec)
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := wsproxy.ParseURL(run.URL)
	drive(addr, codex.Work)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		names, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		if len(names) > 0 && len(rec.Results()) == len(names) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := run.Stop(); err != nil {
		t.Fatal(err)
	}
	names, err := wsreplay.FindRecordings(dir)
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// serve replays recordings on a fresh listener of scheme until the test ends.
func serve(t *testing.T, srv *wsreplay.Server, scheme string) wsproxy.Addr {
	t.Helper()
	urlFile := filepath.Join(t.TempDir(), "url")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- srv.ListenAndServe(ctx, wsreplay.ListenOptions{Listen: wstest.ListenURL(t, scheme), URLFile: urlFile})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ListenAndServe: %v", err)
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(urlFile); err == nil {
			a, err := wsproxy.ParseURL(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
		select {
		case err := <-done:
			t.Fatalf("ListenAndServe: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("no URL file")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func recorded(t *testing.T, path string, dir wire.Direction) [][]byte {
	t.Helper()
	rec, err := recorder.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, e := range rec.Frames() {
		if e.Dir == dir {
			out = append(out, e.Line)
		}
	}
	return out
}

func waitResults(t *testing.T, srv *wsreplay.Server, n int) []wsreplay.Result {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(srv.Results()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d replays ended", len(srv.Results()), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return srv.Results()
}

// A recorded turn replayed over ws:// and unix:// to a client of another library
// (gorilla/websocket): the client completes its turn and gets every recorded
// server message byte for byte; the replay finds every expected message.
func TestReplayTurn(t *testing.T) {
	for _, v := range []string{"0.163.0", "0.171.0"} {
		var work string
		rec := recordRun(t, v, nil, func(addr wsproxy.Addr, w string) {
			work = w
			c := wstest.MustDial(t, addr, nil)
			c.Turn(w)
			c.Conn.Close()
		})
		if len(rec) != 1 {
			t.Fatalf("recordings %v", rec)
		}
		for _, scheme := range []string{"ws", "unix"} {
			t.Run(v+"/"+scheme, func(t *testing.T) {
				srv := &wsreplay.Server{Recordings: rec}
				addr := serve(t, srv, scheme)
				c := wstest.MustDial(t, addr, nil)
				c.Turn(work)
				want := recorded(t, rec[0], wire.ServerToClient)
				deadline := time.Now().Add(10 * time.Second)
				for len(c.Got()) < len(want) && time.Now().Before(deadline) {
					time.Sleep(10 * time.Millisecond)
				}
				got := c.Got()
				if len(got) != len(want) {
					t.Fatalf("got %d messages, recorded %d\n%s", len(got), len(want), wstest.Lines(got))
				}
				for i := range got {
					if !bytes.Equal(got[i], want[i]) {
						t.Fatalf("message %d:\n got %q\nwant %q", i+1, got[i], want[i])
					}
				}
				c.Conn.Close()
				if r := waitResults(t, srv, 1); r[0].Err != nil {
					t.Errorf("replay: %v", r[0].Err)
				}
				// No recording left: a further connection is refused.
				if _, resp, err := wstest.Dial(t, addr, nil); err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
					t.Errorf("a connection past the last recording: %v %v, want 503", err, resp)
				}
			})
		}
	}
}

// A directory of two connections' recordings: the first connection gets the
// first, the second the second; with Loop a third starts over.
func TestReplayTwoConnections(t *testing.T) {
	var work string
	rec := recordRun(t, "0.171.0", nil, func(addr wsproxy.Addr, w string) {
		work = w
		a := wstest.MustDial(t, addr, nil)
		a.Initialize("first")
		a.Conn.Close()
		time.Sleep(200 * time.Millisecond) // accepted in this order
		b := wstest.MustDial(t, addr, nil)
		b.Turn(w)
		b.Conn.Close()
	})
	if len(rec) != 2 {
		t.Fatalf("recordings %v", rec)
	}
	srv := &wsreplay.Server{Recordings: rec, Loop: true}
	addr := serve(t, srv, "ws")
	a := wstest.MustDial(t, addr, nil)
	a.Initialize("first")
	a.Conn.Close()
	b := wstest.MustDial(t, addr, nil)
	b.Turn(work)
	b.Conn.Close()
	c := wstest.MustDial(t, addr, nil)
	c.Initialize("first")
	c.Conn.Close()
	res := waitResults(t, srv, 3)
	for _, r := range res {
		if r.Err != nil {
			t.Errorf("connection %d (%s): %v", r.Conn, r.Recording, r.Err)
		}
	}
}

// The real server's refusals: an Origin header (403), a missing, malformed or
// wrong bearer token when the recording's client sent one (401 with the server's
// text); health routes answer 200.
func TestReplayRefusals(t *testing.T) {
	rec := recordRun(t, "0.171.0", nil, func(addr wsproxy.Addr, w string) {
		c := wstest.MustDial(t, addr, http.Header{"Authorization": {"Bearer recorded-token-value-123456"}})
		c.Initialize("auth")
		c.Conn.Close()
	})
	srv := &wsreplay.Server{Recordings: rec, Token: "the-right-token", Loop: true}
	addr := serve(t, srv, "ws")
	for _, tt := range []struct {
		header http.Header
		status int
		text   string
	}{
		{http.Header{"Origin": {"null"}, "Authorization": {"Bearer the-right-token"}}, 403, ""},
		{nil, 401, "missing websocket bearer token"},
		{http.Header{"Authorization": {"Basic eA=="}}, 401, "invalid authorization header"},
		{http.Header{"Authorization": {"Bearer wrong"}}, 401, "invalid websocket bearer token"},
	} {
		_, resp, err := wstest.Dial(t, addr, tt.header)
		if err == nil || resp == nil || resp.StatusCode != tt.status {
			t.Errorf("%v: %v %v, want %d", tt.header, err, resp, tt.status)
			continue
		}
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		if !strings.Contains(b.String(), tt.text) {
			t.Errorf("%v: body %q, want %q", tt.header, b.String(), tt.text)
		}
	}
	c := wstest.MustDial(t, addr, http.Header{"Authorization": {"bearer the-right-token"}})
	c.Initialize("auth")
	for _, p := range []string{"/readyz", "/healthz"} {
		resp, err := http.Get("http://" + addr.Host + p)
		if err != nil || resp.StatusCode != 200 {
			t.Errorf("GET %s: %v %v", p, err, resp)
		}
	}
}

// A message with raw line breaks inside (pretty-printed JSON) is one message to the
// replay, not several lines.
func TestReplayPrettyPrintedMessage(t *testing.T) {
	rec := recordRun(t, "0.171.0", nil, func(addr wsproxy.Addr, w string) {
		c := wstest.MustDial(t, addr, nil)
		c.Initialize("pretty")
		c.Conn.Close()
	})
	srv := &wsreplay.Server{Recordings: rec}
	addr := serve(t, srv, "unix")
	c := wstest.MustDial(t, addr, nil)
	c.Send("{\n  \"id\": 1,\n  \"method\": \"initialize\",\n  \"params\": {\"clientInfo\": {\"name\": \"pretty\", \"title\": \"t\", \"version\": \"1\"}}\n}")
	c.Wait(0, "initialize response", wstest.Response("1"))
	c.Send(`{"method":"initialized"}`)
	c.Conn.Close()
	if r := waitResults(t, srv, 1); r[0].Err != nil {
		t.Errorf("replay: %v", r[0].Err)
	}
}
