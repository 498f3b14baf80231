package wsreplay_test

import (
	"context"
	"testing"

	"github.com/codexrec/codexrec/internal/testing/wstest"
	"github.com/codexrec/codexrec/wsproxy"
	"github.com/codexrec/codexrec/wsreplay"
)

// A client's request sent just as the replay is shut down is still read and
// answered in full (the turn it starts completes) before the connection is
// dropped.
func TestReplayShutdownDrains(t *testing.T) {
	var work string
	rec := recordRun(t, "0.171.0", nil, func(addr wsproxy.Addr, w string) {
		work = w
		c := wstest.MustDial(t, addr, nil)
		c.Turn(w)
		c.Conn.Close()
	})
	srv := &wsreplay.Server{Recordings: rec}
	ln, bound, err := wsproxy.Listen(wsproxy.Addr{Scheme: "ws", Host: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	c := wstest.MustDial(t, bound, nil)
	i := c.Initialize("wstest")
	thread, i := c.StartThread(i, work)
	c.StartTurn(thread, "say hello")
	cancel() // as SIGTERM would, with the request just sent
	c.Wait(i, "turn/completed", wstest.Method("turn/completed"))
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if r := srv.Results(); len(r) != 1 || r[0].Err != nil {
		t.Fatalf("results %+v, want one replay without error", r)
	}
}
