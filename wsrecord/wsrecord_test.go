package wsrecord_test

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/fixtures/fakemodel"
	"github.com/codexrec/codexrec/internal/testing/codextest"
	"github.com/codexrec/codexrec/internal/testing/wstest"
	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/wire"
	"github.com/codexrec/codexrec/wsproxy"
	"github.com/codexrec/codexrec/wsrecord"
)

func frames(t *testing.T, path string, dir wire.Direction) ([][]byte, *recorder.Recording) {
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
	return out, rec
}

func same(t *testing.T, what string, got, want [][]byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d messages, want %d\ngot:\n%swant:\n%s", what, len(got), len(want), wstest.Lines(got), wstest.Lines(want))
	}
	for i := range got {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("%s: message %d:\n got %q\nwant %q", what, i+1, got[i], want[i])
		}
	}
}

// A full turn through a record run that starts the app-server itself, for both
// versions and both listening transports: the recording holds every message the
// client sent and got, byte for byte (no stage rewrites them here), and its header
// and trailer say what the connection was and how it ended.
func TestRecordTurn(t *testing.T) {
	for _, v := range []string{"0.163.0", "0.171.0"} {
		for _, scheme := range []string{"ws", "unix"} {
			t.Run(v+"/"+scheme, func(t *testing.T) {
				codex := wstest.Prepare(t, v, wstest.TurnModel())
				dir := t.TempDir()
				urlFile := filepath.Join(t.TempDir(), "url")
				var log codextest.SyncBuffer
				rec := &wsrecord.Recorder{Dir: dir, Header: recorder.Header{Codexrec: "test", Command: codex.Args}}
				run, err := wsrecord.Start(wsrecord.Options{Listen: wstest.ListenURL(t, scheme), Command: codex.Args,
					Env: codex.Env, Dir: codex.Work, Stderr: &log, URLFile: urlFile}, rec)
				if err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(urlFile)
				if err != nil || strings.TrimSpace(string(b)) != run.URL {
					t.Fatalf("url file %q (%v), want %s", b, err, run.URL)
				}
				addr, err := wsproxy.ParseURL(run.URL)
				if err != nil {
					t.Fatal(err)
				}
				if scheme == "ws" && strings.HasSuffix(addr.Host, ":0") {
					t.Fatalf("bound URL %s still has port 0", run.URL)
				}
				c := wstest.MustDial(t, addr, nil)
				c.Turn(codex.Work)
				c.Conn.Close()
				waitResults(t, rec, 1)
				sockDir := filepath.Dir(run.Child.Addr.Path)
				if err := run.Stop(); err != nil {
					t.Fatalf("Stop: %v", err)
				}
				if _, err := os.Stat(sockDir); !os.IsNotExist(err) {
					t.Errorf("the child's socket directory %s is still there (%v)", sockDir, err)
				}
				res := rec.Results()
				if len(res) != 1 || res[0].Err != nil {
					t.Fatalf("results = %+v", res)
				}
				sent, r := frames(t, res[0].Path, wire.ClientToServer)
				got, _ := frames(t, res[0].Path, wire.ServerToClient)
				same(t, "recorded c2s vs sent", sent, c.Sent())
				if len(got) < len(c.Got()) {
					t.Fatalf("recorded %d s2c, the client got %d", len(got), len(c.Got()))
				}
				same(t, "recorded s2c vs got", got[:len(c.Got())], c.Got())
				h := r.Header
				if h.Socket == nil || h.Socket.Transport != scheme || h.Socket.Connection != 1 || h.Socket.Session != rec.Session {
					t.Errorf("header socket = %+v", h.Socket)
				}
				if h.CodexVersion != v {
					t.Errorf("header codex version %q", h.CodexVersion)
				}
				if r.Trailer == nil || r.Trailer.Ended != recorder.EndClientClosed {
					t.Errorf("trailer = %+v", r.Trailer)
				}
				fi, err := os.Stat(res[0].Path)
				if err != nil || fi.Mode().Perm() != 0o600 {
					t.Errorf("recording mode %v (%v)", fi.Mode(), err)
				}
			})
		}
	}
}

// Two connections of one run: recordings named in connection order, the session
// id shared, each holding its own connection's messages.
func TestRecordTwoConnections(t *testing.T) {
	codex := wstest.Prepare(t, "0.171.0", wstest.TurnModel())
	codex.Start(t, "unix")
	dir := t.TempDir()
	rec := &wsrecord.Recorder{Dir: dir}
	run, err := wsrecord.Start(wsrecord.Options{Listen: "ws://127.0.0.1:0", Upstream: codex.Addr.String()}, rec)
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := wsproxy.ParseURL(run.URL)
	a := wstest.MustDial(t, addr, nil)
	ia := a.Initialize("A")
	b := wstest.MustDial(t, addr, nil)
	ib := b.Initialize("B")
	thread, ia := a.StartThread(ia, codex.Work)
	b.Wait(ib, "thread/started on B", wstest.Method("thread/started"))
	a.StartTurn(thread, "say hello")
	a.Wait(ia, "turn/completed", wstest.Method("turn/completed"))
	b.Conn.Close()
	a.Conn.Close()
	waitResults(t, rec, 2)
	if err := run.Stop(); err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(names) != 2 {
		t.Fatalf("recordings %v", names)
	}
	for i, n := range names {
		_, r := frames(t, n, wire.ClientToServer)
		if r.Header.Socket.Connection != i+1 || r.Header.Socket.Session != rec.Session {
			t.Errorf("%s: socket %+v, want connection %d of %s", n, r.Header.Socket, i+1, rec.Session)
		}
		if !strings.HasSuffix(n, fmt.Sprintf("-%04d.jsonl", i+1)) {
			t.Errorf("name %s", n)
		}
	}
	sentB, _ := frames(t, names[1], wire.ClientToServer)
	same(t, "B's recording", sentB, b.Sent())
	gotB, _ := frames(t, names[1], wire.ServerToClient)
	same(t, "B's recording s2c", gotB[:len(b.Got())], b.Got())
}

// A bearer token reaches the upstream (it accepts the connection) and never the
// recording, with the whole pipeline (sanitizer and leak guard) in place.
func TestRecordBearerTokenNeverWritten(t *testing.T) {
	codex := wstest.Prepare(t, "0.171.0", wstest.TurnModel())
	tokenFile := filepath.Join(t.TempDir(), "token")
	const token = "Zq7-capability-token-never-recorded-91c2"
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	codex.Start(t, "ws", "--ws-auth", "capability-token", "--ws-token-file", tokenFile)
	dir := t.TempDir()
	rec := &wsrecord.Recorder{Dir: dir, NewSession: func() (*record.Session, error) {
		z, err := sanitize.New(sanitize.Options{})
		return &record.Session{Sanitizer: z, Guard: z}, err
	}}
	run, err := wsrecord.Start(wsrecord.Options{Listen: "ws://127.0.0.1:0", Upstream: codex.Addr.String()}, rec)
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := wsproxy.ParseURL(run.URL)
	if _, resp, err := wstest.Dial(t, addr, nil); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token: err %v resp %v, want the server's 401", err, resp)
	}
	c := wstest.MustDial(t, addr, http.Header{"Authorization": {"Bearer " + token}, "Cookie": {"s=" + token}})
	c.Initialize("token")
	c.Conn.Close()
	waitResults(t, rec, 1)
	if err := run.Stop(); err != nil {
		t.Fatal(err)
	}
	res := rec.Results()
	if len(res) != 1 || res[0].Err != nil {
		t.Fatalf("results %+v", res)
	}
	b, err := os.ReadFile(res[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(token)) {
		t.Fatalf("the token is in the recording")
	}
	_, r := frames(t, res[0].Path, wire.ClientToServer)
	if got := r.Header.Socket.Headers["Authorization"]; len(got) != 1 || got[0] != wsproxy.Redacted {
		t.Errorf("recorded Authorization %q, want it redacted", got)
	}
	if got := r.Header.Socket.Headers["Cookie"]; len(got) != 1 || got[0] != wsproxy.Redacted {
		t.Errorf("recorded Cookie %q, want it redacted", got)
	}
}

// A client that drops mid-turn: its recording is published, ends with
// client-closed and holds what crossed until then.
func TestRecordClientDropsMidTurn(t *testing.T) {
	codex := wstest.Prepare(t, "0.163.0", []fakemodel.Response{{Hold: true, Output: []fakemodel.Item{{Type: "message", Text: "a long answer"}}}})
	dir := t.TempDir()
	rec := &wsrecord.Recorder{Dir: dir}
	run, err := wsrecord.Start(wsrecord.Options{Listen: wstest.ListenURL(t, "unix"), Command: codex.Args, Env: codex.Env, Dir: codex.Work}, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Stop()
	addr, _ := wsproxy.ParseURL(run.URL)
	c := wstest.MustDial(t, addr, nil)
	i := c.Initialize("dropper")
	thread, i := c.StartThread(i, codex.Work)
	c.StartTurn(thread, "say hello")
	c.Wait(i, "the first delta", wstest.Method("item/agentMessage/delta"))
	c.Conn.UnderlyingConn().Close()
	waitResults(t, rec, 1)
	codex.Model.Release()
	res := rec.Results()[0]
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	sent, r := frames(t, res.Path, wire.ClientToServer)
	same(t, "recorded c2s", sent, c.Sent())
	if r.Trailer.Ended != recorder.EndClientClosed {
		t.Errorf("trailer %+v, want client-closed", r.Trailer)
	}
}

// waitResults waits until n connections' recordings are finished.
func waitResults(t *testing.T, rec *wsrecord.Recorder, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(rec.Results()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d recordings finished", len(rec.Results()), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A client that stops reading mid-turn and then drops: the messages read from the
// server but never written to it are in the recording, marked undelivered, and the
// trailer says which was the last delivered.
func TestRecordUndeliveredToAClientThatStoppedReading(t *testing.T) {
	var deltas []string
	for i := 0; i < 4000; i++ {
		deltas = append(deltas, strings.Repeat("x", 2000)+" ")
	}
	codex := wstest.Prepare(t, "0.171.0", []fakemodel.Response{{Output: []fakemodel.Item{
		{Type: "message", Text: strings.Join(deltas, ""), Deltas: deltas}}}})
	codex.Start(t, "unix")
	rec := &wsrecord.Recorder{Dir: t.TempDir()}
	run, err := wsrecord.Start(wsrecord.Options{Listen: "ws://127.0.0.1:0", Upstream: codex.Addr.String()}, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Stop()
	addr, _ := wsproxy.ParseURL(run.URL)
	conn, _, err := wstest.Dialer(addr).Dial(wsproxy.DialURL(addr, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetReadLimit(-1)
	send := func(s string) {
		if err := conn.WriteMessage(websocket.TextMessage, []byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	readID := func(id string) gjson.Result {
		for {
			_, p, err := conn.ReadMessage()
			if err != nil {
				t.Fatal(err)
			}
			if m := gjson.ParseBytes(p); m.Get("id").Raw == id && !m.Get("method").Exists() {
				return m
			}
		}
	}
	send(`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"slow","version":"1"}}}`)
	readID("1")
	send(`{"method":"initialized"}`)
	send(`{"id":2,"method":"thread/start","params":{"cwd":` + strconv.Quote(codex.Work) + `,"approvalPolicy":"never"}}`)
	thread := readID("2").Get("result.thread.id").Str
	send(`{"id":3,"method":"turn/start","params":{"threadId":"` + thread + `","input":[{"type":"text","text":"hi"}]}}`)
	// Stop reading: 8 MB of deltas fill the socket buffers and the relay's write
	// blocks; then drop the connection.
	time.Sleep(3 * time.Second)
	conn.UnderlyingConn().Close()
	waitResults(t, rec, 1)
	res := rec.Results()[0]
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	r, err := recorder.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	tr := r.Trailer
	if tr.Undelivered == 0 || tr.ClientError == "" || tr.LastDelivered == 0 {
		t.Fatalf("trailer %+v: want undelivered frames after a last delivered one", tr)
	}
	t.Logf("trailer: ended %s, last delivered %d, %d undelivered (%s)", tr.Ended, tr.LastDelivered, tr.Undelivered, tr.ClientError)
	var undelivered int64
	for _, e := range r.Frames(wire.ServerToClient) {
		switch {
		case e.Undelivered:
			undelivered++
			if e.Seq <= tr.LastDelivered {
				t.Errorf("frame %d is undelivered but not after the last delivered %d", e.Seq, tr.LastDelivered)
			}
		case e.Seq > tr.LastDelivered:
			t.Errorf("frame %d after the last delivered %d is not marked undelivered", e.Seq, tr.LastDelivered)
		}
	}
	if undelivered != tr.Undelivered {
		t.Errorf("%d frames marked undelivered, the trailer says %d", undelivered, tr.Undelivered)
	}
}
