package wsproxy_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/fixtures/fakemodel"
	"github.com/codexrec/codexrec/internal/testing/wstest"
	"github.com/codexrec/codexrec/wire"
	"github.com/codexrec/codexrec/wsproxy"
)

// blockingTap never returns from its first Frame until released.
type blockingTap struct {
	memTap
	release chan struct{}
}

func (b *blockingTap) Frame(f *wire.Frame) error {
	<-b.release
	return b.memTap.Frame(f)
}

// Two connections at once share a thread: thread/started reaches both, each
// connection is tapped on its own, and one connection that stops reading does not
// stall the other.
func TestRelayTwoConnections(t *testing.T) {
	codex := wstest.Prepare(t, "0.171.0", wstest.TurnModel())
	codex.Start(t, "unix")
	r := startRelay(t, codex.Addr, "ws")
	a := wstest.MustDial(t, r.addr, nil)
	ia := a.Initialize("clientA")
	b := wstest.MustDial(t, r.addr, nil)
	ib := b.Initialize("clientB")
	thread, ia := a.StartThread(ia, codex.Work)
	started, _ := b.Wait(ib, "thread/started on the second connection", wstest.Method("thread/started"))
	if got := started.Get("params.thread.id").Str; got != thread {
		t.Errorf("B saw thread/started for %q, want %q", got, thread)
	}
	a.StartTurn(thread, "say hello")
	a.Wait(ia, "turn/completed", wstest.Method("turn/completed"))
	b.Wait(ib, "the thread idle again on B", func(m gjson.Result) bool {
		return m.Get("method").Str == "thread/status/changed" && m.Get("params.status.type").Str == "idle"
	})
	a.Conn.Close()
	b.Conn.Close()
	ta, tb := r.tap(0), r.tap(1)
	ta.wait(t)
	tb.wait(t)
	if ta.info.N != 1 || tb.info.N != 2 {
		t.Errorf("connection numbers %d, %d", ta.info.N, tb.info.N)
	}
	deliveredPrefix(t, a.Got(), ta.lines(wire.ServerToClient))
	sameMessages(t, "B", b.Got(), tb.lines(wire.ServerToClient))
	if n := len(tb.lines(wire.ClientToServer)); n != 2 {
		t.Errorf("B sent %d messages through the relay, want 2", n)
	}
}

// A client that drops its connection mid-turn: the relay drops the upstream side,
// the tap says the client ended it without a close frame, and the turn goes on
// upstream (the model's held stream is served to the end).
func TestRelayClientDropsMidTurn(t *testing.T) {
	codex := wstest.Prepare(t, "0.171.0", []fakemodel.Response{{Hold: true, Output: []fakemodel.Item{{Type: "message", Text: "a long answer"}}}})
	codex.Start(t, "unix")
	r := startRelay(t, codex.Addr, "unix")
	c := wstest.MustDial(t, r.addr, nil)
	i := c.Initialize("dropper")
	thread, i := c.StartThread(i, codex.Work)
	c.StartTurn(thread, "say hello")
	c.Wait(i, "the first delta", wstest.Method("item/agentMessage/delta"))
	c.Conn.UnderlyingConn().Close()
	end := r.tap(0).wait(t)
	if end.By != wsproxy.SideClient || end.Code != -1 || end.Err != nil {
		t.Errorf("end = %+v, want a client drop", end)
	}
	codex.Model.Release()
	deadline := time.Now().Add(30 * time.Second)
	for codex.Model.Remaining() > 0 || codex.Model.Served() < 1 {
		if time.Now().After(deadline) {
			t.Fatalf("the model's stream was never finished (served %d, remaining %d)", codex.Model.Served(), codex.Model.Remaining())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The server is still there for a new connection.
	c2 := wstest.MustDial(t, r.addr, nil)
	c2.Initialize("after")
}

// A connection whose tap is stuck does not stall another connection, nor its own
// forwarding while its queue has room; once released its tap sees every message.
func TestRelayStuckTapStallsNoOther(t *testing.T) {
	codex := wstest.Prepare(t, "0.171.0", wstest.TurnModel())
	codex.Start(t, "unix")
	ln, bound, err := wsproxy.Listen(wsproxy.Addr{Scheme: "ws", Host: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	stuck := &blockingTap{memTap: memTap{done: make(chan struct{})}, release: make(chan struct{})}
	free := &memTap{done: make(chan struct{})}
	rl := &wsproxy.Relay{Upstream: codex.Addr, Open: func(c *wsproxy.Conn) (wsproxy.Tap, error) {
		if c.N == 1 {
			return stuck, nil
		}
		return free, nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rl.Serve(ctx, ln) }()
	defer func() { cancel(); <-done }()

	a := wstest.MustDial(t, bound, nil)
	a.Initialize("stuck") // forwarded although its tap has not returned once
	b := wstest.MustDial(t, bound, nil)
	b.Turn(codex.Work)
	b.Conn.Close()
	free.wait(t)
	select {
	case <-stuck.done:
		t.Fatal("the stuck connection ended")
	default:
	}
	close(stuck.release)
	a.Conn.Close()
	stuck.wait(t)
	if got := len(stuck.lines(wire.ClientToServer)); got != 2 {
		t.Errorf("the stuck tap saw %d client messages, want 2", got)
	}
}

// A binary message crosses as a binary message (the server ignores it, as it does
// without the relay) and is tapped with its exact bytes as raw, reason binary.
func TestRelayBinaryMessage(t *testing.T) {
	codex := wstest.Prepare(t, "0.171.0", wstest.TurnModel())
	codex.Start(t, "unix")
	r := startRelay(t, codex.Addr, "ws")
	c := wstest.MustDial(t, r.addr, nil)
	i := c.Initialize("binary")
	bin := []byte(`{"id":2,"method":"thread/list","params":{}}`)
	if err := c.Conn.WriteMessage(websocket.BinaryMessage, bin); err != nil {
		t.Fatal(err)
	}
	c.Send(`{"id":3,"method":"thread/list","params":{}}`)
	c.Wait(i, "the response to the text request", wstest.Response("3"))
	for _, m := range c.Got() {
		if gjson.GetBytes(m, "id").Raw == "2" {
			t.Errorf("the binary message was answered: %s", m)
		}
	}
	c.Conn.Close()
	m := r.tap(0)
	m.wait(t)
	found := false
	for _, f := range m.frames {
		if f.Msg.Reason == wsproxy.BinaryReason {
			found = true
			if f.Dir != wire.ClientToServer || f.Msg.Kind != wire.KindRaw || !bytes.Equal(f.Line, bin) {
				t.Errorf("binary frame tapped as %+v %q", f.Msg, f.Line)
			}
		}
	}
	if !found {
		t.Error("the binary message was not tapped")
	}
}
