package wsproxy_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/codexrec/codexrec/internal/testing/wstest"
	"github.com/codexrec/codexrec/wire"
	"github.com/codexrec/codexrec/wsproxy"
)

// serveOwn is serveRelay on ws:// with a shutdown the test makes itself.
func serveOwn(t *testing.T, upstream wsproxy.Addr, grace time.Duration) (*relay, context.CancelFunc, <-chan error) {
	t.Helper()
	r, cancel, done := serveRelay(t, upstream, wsproxy.Addr{Scheme: "ws", Host: "127.0.0.1:0"}, grace)
	t.Cleanup(cancel)
	return r, cancel, done
}

// A client's last request, sent as the relay is being shut down and followed at once
// by its close, still reaches the real server and the tap, and the connection ends
// by the client's close, not by the shutdown.
func TestShutdownRelaysLastMessage(t *testing.T) {
	codex := wstest.Prepare(t, "0.171.0", wstest.TurnModel())
	codex.Start(t, "ws")
	r, cancel, done := serveOwn(t, codex.Addr, 0)
	c := wstest.MustDial(t, r.addr, nil)
	c.Initialize("shutdown-test")
	cancel()
	last := `{"id":7,"method":"thread/start","params":{"cwd":"/tmp"}}`
	c.Send(last)
	c.Conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, "bye"))
	m := r.tap(0)
	end := m.wait(t)
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	sent := m.lines(wire.ClientToServer)
	if len(sent) == 0 || string(sent[len(sent)-1]) != last {
		t.Fatalf("the last request was not relayed; tapped c2s: %q", sent)
	}
	if end.By != wsproxy.SideClient || end.Code != websocket.CloseNormalClosure {
		t.Errorf("end = %+v, want the client's close 1000", end)
	}
}

// A connection still open when the grace is over is dropped and says so; Serve
// returns within the grace (plus slack), not when the client gets round to closing.
func TestShutdownDropsIdleAfterGrace(t *testing.T) {
	codex := wstest.Prepare(t, "0.171.0", wstest.TurnModel())
	codex.Start(t, "ws")
	const grace = 300 * time.Millisecond
	r, cancel, done := serveOwn(t, codex.Addr, grace)
	c := wstest.MustDial(t, r.addr, nil)
	c.Initialize("shutdown-test")
	t0 := time.Now()
	cancel()
	end := r.tap(0).wait(t)
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	took := time.Since(t0)
	if end.By != wsproxy.SideShutdown {
		t.Errorf("end = %+v, want a shutdown", end)
	}
	if took < grace || took > grace+10*time.Second {
		t.Errorf("Serve returned %v after the shutdown, want about the %v grace", took, grace)
	}
	if c.Closed(5*time.Second) == nil {
		t.Error("the client's connection is still open after the shutdown")
	}
}

// Messages a client sent before the shutdown that are still in the socket buffer
// because the relay was busy (its tap stuck past the grace) are read, relayed,
// answered and tapped before the connection is dropped: the drain waits for a
// connection to be quiet, not for a fixed time.
func TestShutdownDrainsWhatIsReadable(t *testing.T) {
	codex := wstest.Prepare(t, "0.171.0", wstest.TurnModel())
	codex.Start(t, "ws")
	ln, bound, err := wsproxy.Listen(wsproxy.Addr{Scheme: "ws", Host: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	stuck := &blockingTap{memTap: memTap{done: make(chan struct{})}, release: make(chan struct{})}
	rl := &wsproxy.Relay{Upstream: codex.Addr, QueueSize: 1, ShutdownGrace: 200 * time.Millisecond,
		Open: func(*wsproxy.Conn) (wsproxy.Tap, error) { return stuck, nil }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rl.Serve(ctx, ln) }()
	defer cancel()

	c := wstest.MustDial(t, bound, nil)
	c.Initialize("drain") // relayed while its tap is stuck: the queue has room for it
	const n = 20
	for i := 0; i < n; i++ {
		c.Send(fmt.Sprintf(`{"id":%d,"method":"thread/list","params":{}}`, 100+i))
	}
	time.Sleep(200 * time.Millisecond) // in the relay's socket buffer by now
	cancel()
	time.Sleep(time.Second) // five graces with the tap stuck
	close(stuck.release)
	end := stuck.wait(t)
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if got := len(stuck.lines(wire.ClientToServer)); got != n+2 {
		t.Errorf("tapped %d client messages, want %d (initialize, initialized and %d requests)", got, n+2, n)
	}
	c.Wait(0, "the last request's answer", wstest.Response(fmt.Sprint(100+n-1)))
	if end.By != wsproxy.SideShutdown || end.Undelivered != nil {
		t.Errorf("end = %+v, want a shutdown with every message delivered", end)
	}
}
