package wsreplay_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/fixtures/fakemodel"
	"github.com/codexrec/codexrec/internal/testing/wstest"
	"github.com/codexrec/codexrec/wsproxy"
	"github.com/codexrec/codexrec/wsrecord"
	"github.com/codexrec/codexrec/wsreplay"
)

// A client that stops reading while a long recorded answer is replayed to it is
// disconnected once its queue is full, and its result says so; another client
// replaying the same recording at the same time gets all of it.
func TestReplaySlowClientDisconnected(t *testing.T) {
	var deltas []string
	for i := 0; i < 4000; i++ {
		deltas = append(deltas, strings.Repeat("x", 4000)+" ")
	}
	codex := wstest.Prepare(t, "0.171.0", []fakemodel.Response{{Output: []fakemodel.Item{
		{Type: "message", Text: strings.Join(deltas, ""), Deltas: deltas}}}})
	dir := t.TempDir()
	rec := &wsrecord.Recorder{Dir: dir}
	run, err := wsrecord.Start(wsrecord.Options{Listen: "ws://127.0.0.1:0", Command: codex.Args, Env: codex.Env, Dir: codex.Work}, rec)
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := wsproxy.ParseURL(run.URL)
	c := wstest.MustDial(t, addr, nil)
	c.Turn(codex.Work)
	c.Conn.Close()
	for deadline := time.Now().Add(20 * time.Second); len(rec.Results()) < 1 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if err := run.Stop(); err != nil {
		t.Fatal(err)
	}
	names, err := wsreplay.FindRecordings(dir)
	if err != nil {
		t.Fatal(err)
	}

	srv := &wsreplay.Server{Recordings: names, Loop: true, ClientQueue: 64}
	raddr := serve(t, srv, "ws")
	conn, _, err := wstest.Dialer(raddr).Dial(wsproxy.DialURL(raddr, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
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
	// What wstest's Turn sends, which the recording holds.
	send(`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"wstest","title":"t","version":"1"}}}`)
	readID("1")
	send(`{"method":"initialized"}`)
	send(`{"id":2,"method":"thread/start","params":{"cwd":` + strconv.Quote(codex.Work) + `,"approvalPolicy":"never"}}`)
	thread := readID("2").Get("result.thread.id").Str
	send(`{"id":3,"method":"turn/start","params":{"threadId":"` + thread + `","input":[{"type":"text","text":"say hello"}]}}`)
	time.Sleep(500 * time.Millisecond) // this client reads no more

	other := wstest.MustDial(t, raddr, nil)
	other.Turn(codex.Work)
	other.Conn.Close()

	conn.SetReadDeadline(time.Now().Add(time.Minute))
	var readErr error
	for readErr == nil {
		_, _, readErr = conn.ReadMessage()
	}
	if ne, ok := readErr.(interface{ Timeout() bool }); ok && ne.Timeout() {
		t.Fatal("the client that did not read was never disconnected")
	}
	for _, r := range waitResults(t, srv, 2) {
		t.Logf("connection %d: %v", r.Conn, r.Err)
		switch r.Conn {
		case 1:
			if !errors.Is(r.Err, wsproxy.ErrSlowClient) {
				t.Errorf("the slow connection's result: %v, want %v", r.Err, wsproxy.ErrSlowClient)
			}
		case 2:
			if r.Err != nil {
				t.Errorf("the other connection's result: %v", r.Err)
			}
		}
	}
}
