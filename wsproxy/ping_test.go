package wsproxy_test

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	gorilla "github.com/gorilla/websocket"

	"github.com/codexrec/codexrec/internal/testing/wstest"
	"github.com/codexrec/codexrec/wsproxy"
)

// The real app-server never sends a ping and its receipt of one cannot be seen from
// outside, so this test uses a fake upstream (coder/websocket) that counts the pings
// it gets and pings the client itself: a client's ping reaches the upstream, and an
// upstream's ping reaches the client.
func TestRelayPingBothWays(t *testing.T) {
	var got atomic.Int32
	pingClient := make(chan struct{})
	pinged := make(chan error, 1)
	up := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OnPingReceived: func(context.Context, []byte) bool {
			got.Add(1)
			return true
		}})
		if err != nil {
			return
		}
		defer c.CloseNow()
		ctx := c.CloseRead(context.Background())
		<-pingClient
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		pinged <- c.Ping(pctx)
		cancel()
		<-ctx.Done()
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go up.Serve(ln)
	defer up.Close()
	r := startRelay(t, wsproxy.Addr{Scheme: "ws", Host: ln.Addr().String()}, "ws")
	c := wstest.MustDial(t, r.addr, nil)
	if err := c.Conn.WriteControl(gorilla.PingMessage, []byte("hi"), time.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(c.Pongs()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if p := c.Pongs(); len(p) != 1 || p[0] != "hi" {
		t.Errorf("client pongs %q, want [hi]", p)
	}
	if n := got.Load(); n != 1 {
		t.Errorf("the upstream got %d pings, want 1", n)
	}
	close(pingClient) // gorilla's default ping handler answers with a pong
	if err := <-pinged; err != nil {
		t.Errorf("the upstream's ping through the relay: %v", err)
	}
}
