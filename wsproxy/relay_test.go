package wsproxy_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/codexrec/codexrec/internal/testing/wstest"
	"github.com/codexrec/codexrec/wire"
	"github.com/codexrec/codexrec/wsproxy"
)

var versions = []string{"0.163.0", "0.171.0"}

// memTap keeps a copy of every frame of one connection and how it ended.
type memTap struct {
	mu     sync.Mutex
	info   *wsproxy.Conn
	frames []wire.Frame
	end    *wsproxy.End
	done   chan struct{}
}

func (m *memTap) Frame(f *wire.Frame) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := *f
	c.Line = bytes.Clone(f.Line)
	m.frames = append(m.frames, c)
	return nil
}
func (m *memTap) Idle() error { return nil }
func (m *memTap) End(e wsproxy.End) {
	m.mu.Lock()
	m.end = &e
	m.mu.Unlock()
	close(m.done)
}

func (m *memTap) wait(t *testing.T) wsproxy.End {
	t.Helper()
	select {
	case <-m.done:
	case <-time.After(30 * time.Second):
		t.Fatal("the connection's tap never ended")
	}
	return *m.end
}

func (m *memTap) lines(dir wire.Direction) [][]byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out [][]byte
	for _, f := range m.frames {
		if f.Dir == dir {
			out = append(out, f.Line)
		}
	}
	return out
}

// relay serves a Relay to upstream on a fresh listener of scheme, stopped at the
// end of the test; taps receives each connection's tap.
type relay struct {
	addr wsproxy.Addr
	mu   sync.Mutex
	taps []*memTap
}

func (r *relay) tap(i int) *memTap { r.mu.Lock(); defer r.mu.Unlock(); return r.taps[i] }

func startRelay(t *testing.T, upstream wsproxy.Addr, scheme string) *relay {
	t.Helper()
	listen := wsproxy.Addr{Scheme: "ws", Host: "127.0.0.1:0"}
	if scheme == "unix" {
		listen = wsproxy.Addr{Scheme: "unix", Path: filepath.Join(t.TempDir(), "relay.sock")}
	}
	r, cancel, done := serveRelay(t, upstream, listen, 0)
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		if scheme == "unix" {
			if _, err := os.Lstat(listen.Path); !os.IsNotExist(err) {
				t.Errorf("the relay's socket %s is still there after Serve (%v)", listen.Path, err)
			}
		}
	})
	return r
}

// serveRelay serves a Relay to upstream on listen with the given ShutdownGrace, and
// returns it with the cancel that shuts it down and Serve's outcome.
func serveRelay(t *testing.T, upstream, listen wsproxy.Addr, grace time.Duration) (*relay, context.CancelFunc, <-chan error) {
	t.Helper()
	ln, bound, err := wsproxy.Listen(listen)
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{addr: bound}
	rl := &wsproxy.Relay{Upstream: upstream, ShutdownGrace: grace, Open: func(c *wsproxy.Conn) (wsproxy.Tap, error) {
		m := &memTap{info: c, done: make(chan struct{})}
		r.mu.Lock()
		r.taps = append(r.taps, m)
		r.mu.Unlock()
		return m, nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rl.Serve(ctx, ln) }()
	return r, cancel, done
}

// deliveredPrefix checks that the client got exactly the first messages the relay
// read from the server (a message read as the client closed may not reach it).
func deliveredPrefix(t *testing.T, got, tapped [][]byte) {
	t.Helper()
	if len(got) > len(tapped) {
		t.Fatalf("the client got %d messages, the relay read %d", len(got), len(tapped))
	}
	sameMessages(t, "client got vs tapped s2c", got, tapped[:len(got)])
	if extra := len(tapped) - len(got); extra > 2 {
		t.Errorf("%d messages read from the server never reached the client:\n%s", extra, wstest.Lines(tapped[len(got):]))
	}
}

func sameMessages(t *testing.T, what string, got, want [][]byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d messages, want %d\ngot:\n%swant:\n%s", what, len(got), len(want), wstest.Lines(got), wstest.Lines(want))
	}
	for i := range got {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("%s: message %d differs:\n got %q\nwant %q", what, i+1, got[i], want[i])
		}
	}
}

// A full turn through the relay, for each version, each listening transport and
// each upstream transport: the client gets byte for byte what the relay read from
// the server, the server gets what the client sent, and the tap saw all of it.
func TestRelayTurn(t *testing.T) {
	for _, v := range versions {
		for _, up := range []string{"unix", "ws"} {
			for _, listen := range []string{"ws", "unix"} {
				t.Run(fmt.Sprintf("%s/%s-to-%s", v, listen, up), func(t *testing.T) {
					codex := wstest.Prepare(t, v, wstest.TurnModel())
					codex.Start(t, up)
					r := startRelay(t, codex.Addr, listen)
					c := wstest.MustDial(t, r.addr, nil)
					c.Turn(codex.Work)
					c.Conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
					m := r.tap(0)
					end := m.wait(t)
					if end.By != wsproxy.SideClient || end.Code != websocket.CloseNormalClosure || end.Err != nil || end.TapErr != nil {
						t.Errorf("end = %+v, want the client's close 1000", end)
					}
					deliveredPrefix(t, c.Got(), m.lines(wire.ServerToClient))
					sameMessages(t, "client sent vs tapped c2s", c.Sent(), m.lines(wire.ClientToServer))
					if m.info.N != 1 || m.info.Transport != listen {
						t.Errorf("conn info = %+v", m.info)
					}
					var methods []string
					for _, f := range m.frames {
						if f.Dir == wire.ServerToClient && f.Msg.Kind == wire.KindResponse {
							methods = append(methods, f.Msg.Method)
						}
					}
					if strings.Join(methods, ",") != "initialize,thread/start,turn/start" {
						t.Errorf("paired responses = %v", methods)
					}
					for i, f := range m.frames {
						if f.Seq != int64(i+1) {
							t.Fatalf("frame %d has seq %d", i+1, f.Seq)
						}
					}
				})
			}
		}
	}
}

// A bearer token reaches the upstream (which accepts it), a wrong or missing one is
// refused with the upstream's own status and text.
func TestRelayBearerToken(t *testing.T) {
	codex := wstest.Prepare(t, "0.171.0", wstest.TurnModel())
	tokenFile := filepath.Join(t.TempDir(), "token")
	const token = "relay-test-capability-token-8f3a"
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	codex.Start(t, "ws", "--ws-auth", "capability-token", "--ws-token-file", tokenFile)
	r := startRelay(t, codex.Addr, "ws")
	for _, tt := range []struct {
		auth, want string
	}{{"", "missing websocket bearer token"}, {"Bearer wrong", "invalid websocket bearer token"}} {
		h := http.Header{}
		if tt.auth != "" {
			h.Set("Authorization", tt.auth)
		}
		_, resp, err := wstest.Dial(t, r.addr, h)
		if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("auth %q: err %v, resp %v; want 401", tt.auth, err, resp)
		}
		var body bytes.Buffer
		body.ReadFrom(resp.Body)
		if !strings.Contains(body.String(), tt.want) {
			t.Errorf("auth %q: body %q, want %q", tt.auth, body.String(), tt.want)
		}
	}
	_, resp, err := wstest.Dial(t, r.addr, http.Header{"Origin": {"http://example.com"}, "Authorization": {"Bearer " + token}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("an Origin header: err %v, resp %v; want the server's 403", err, resp)
	}
	c := wstest.MustDial(t, r.addr, http.Header{"Authorization": {"Bearer " + token}})
	c.Initialize("authed")
	if len(r.taps) != 1 {
		t.Fatalf("%d connections opened, want 1 (refused upgrades open none)", len(r.taps))
	}
	if got := r.tap(0).info.Header.Get("Authorization"); got != "Bearer "+token {
		t.Errorf("the tap's Conn.Header has Authorization %q", got)
	}
	if red := wsproxy.RedactHeader(r.tap(0).info.Header); red["Authorization"][0] != wsproxy.Redacted {
		t.Errorf("RedactHeader kept Authorization: %v", red["Authorization"])
	}
	for _, p := range []string{"/readyz", "/healthz"} {
		resp, err := http.Get("http://" + r.addr.Host + p)
		if err != nil || resp.StatusCode != 200 {
			t.Errorf("GET %s through the relay: %v %v", p, err, resp)
		}
	}
}

// One frame of 16 MiB + 1 byte: the server refuses it by dropping the connection,
// through the relay exactly as directly; nothing is truncated on the way.
func TestRelayOversizedFrame(t *testing.T) {
	codex := wstest.Prepare(t, "0.171.0", wstest.TurnModel())
	codex.Start(t, "unix")
	r := startRelay(t, codex.Addr, "ws")
	big := `{"id":9,"method":"thread/list","params":{"x":"` + strings.Repeat("a", 16<<20+1-len(`{"id":9,"method":"thread/list","params":{"x":""}}`)) + `"}}`
	if len(big) != 16<<20+1 {
		t.Fatalf("built %d bytes", len(big))
	}
	for _, target := range []struct {
		name string
		addr wsproxy.Addr
	}{{"direct", codex.Addr}, {"relayed", r.addr}} {
		c, _, err := wstest.DialBuffer(t, target.addr, nil, len(big)+64)
		if err != nil {
			t.Fatal(err)
		}
		c.Initialize("big")
		// The server may reset the connection while the frame is still being written.
		if err := c.Conn.WriteMessage(websocket.TextMessage, []byte(big)); err != nil {
			t.Logf("%s: write: %v", target.name, err)
		}
		if err := c.Closed(20 * time.Second); err == nil {
			t.Fatalf("%s: the connection is still open after a 16 MiB+1 frame", target.name)
		}
	}
	end := r.tap(0).wait(t)
	if end.By != wsproxy.SideServer {
		t.Errorf("end = %+v, want the server's drop", end)
	}
	got := r.tap(0).lines(wire.ClientToServer)
	if last := got[len(got)-1]; len(last) != len(big) {
		t.Errorf("the tap saw %d bytes of the big frame, want %d", len(last), len(big))
	}
}

// A ping through the relay is answered with the client's own payload, after the
// server answered the relay's ping.
func TestRelayPing(t *testing.T) {
	codex := wstest.Prepare(t, "0.163.0", wstest.TurnModel())
	codex.Start(t, "unix")
	r := startRelay(t, codex.Addr, "unix")
	c := wstest.MustDial(t, r.addr, nil)
	if err := c.Conn.WriteControl(websocket.PingMessage, []byte("hi"), time.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	c.Initialize("pinger") // a message after the ping: its pong has arrived by then
	if p := c.Pongs(); len(p) != 1 || p[0] != "hi" {
		t.Errorf("pongs = %q, want [hi]", p)
	}
}

// A ws:// relay in front of a unix socket server answers as a ws:// server would:
// health checks 200, an Origin header 403.
func TestRelayWSInFrontOfUnix(t *testing.T) {
	codex := wstest.Prepare(t, "0.163.0", wstest.TurnModel())
	codex.Start(t, "unix")
	r := startRelay(t, codex.Addr, "ws")
	for _, p := range []string{"/readyz", "/healthz"} {
		resp, err := http.Get("http://" + r.addr.Host + p)
		if err != nil || resp.StatusCode != 200 {
			t.Errorf("GET %s: %v %v", p, err, resp)
		}
	}
	if _, resp, err := wstest.Dial(t, r.addr, http.Header{"Origin": {"null"}}); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("an Origin header: %v %v, want 403", err, resp)
	}
	if len(r.taps) != 0 {
		t.Errorf("%d connections opened", len(r.taps))
	}
	wstest.MustDial(t, r.addr, nil).Initialize("ok")
}
