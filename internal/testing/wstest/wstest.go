// Package wstest gives socket-transport tests a real codex app-server listening on
// ws:// or unix:// (hermetic, against the fake model) and a WebSocket client built on
// github.com/gorilla/websocket: a different library from the one codexrec serves and
// relays with (github.com/coder/websocket), so a test's client shares no code, and
// no bug, with the server side. It is for tests only.
package wstest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/fixtures/fakemodel"
	"github.com/codexrec/codexrec/internal/testing/codextest"
	"github.com/codexrec/codexrec/wsproxy"
)

// Timeout bounds every wait of a Client.
const Timeout = 60 * time.Second

// Codex is a running codex app-server on a socket.
type Codex struct {
	Addr      wsproxy.Addr
	Model     *fakemodel.Server
	Work      string // the workspace (the server's cwd)
	CodexHome string
	Stderr    *codextest.SyncBuffer
	Version   string
	Args      []string // the command line, without --listen (for a child started by codexrec)
	Env       []string
}

// TurnModel is the fake model's script for one plain turn answering "hello".
func TurnModel() []fakemodel.Response {
	return []fakemodel.Response{{Output: []fakemodel.Item{{Type: "message", Text: "Hello from the fake model."}}}}
}

// Prepare builds the command line and environment of a hermetic codex version
// against a fake model serving script, without starting it.
func Prepare(t testing.TB, version string, script []fakemodel.Response) *Codex {
	t.Helper()
	bin := codextest.Binary(t, version)
	env, home := codextest.Env(t)
	model, err := fakemodel.Start(script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.Close() })
	return &Codex{Model: model, Work: t.TempDir(), CodexHome: home, Stderr: &codextest.SyncBuffer{},
		Version: version, Args: append([]string{bin}, codextest.FakeProviderArgs(model.URL())...), Env: env}
}

// Command is the prepared command with extra arguments appended.
func (c *Codex) Command(extra ...string) *exec.Cmd {
	cmd := exec.Command(c.Args[0], append(append([]string(nil), c.Args[1:]...), extra...)...)
	cmd.Env, cmd.Dir = c.Env, c.Work
	return cmd
}

var listening = regexp.MustCompile(`listening on: (ws://[0-9.:\[\]]+)`)

// Start runs codex app-server on scheme "ws" (ws://127.0.0.1:0, the port read from
// its stderr) or "unix" (a private socket via wsproxy.StartChild), with extra
// arguments (--ws-auth ...). It is stopped at the end of the test.
func (c *Codex) Start(t testing.TB, scheme string, extra ...string) {
	t.Helper()
	if scheme == "unix" {
		child, err := wsproxy.StartChild(context.Background(), c.Command(extra...), c.Stderr, 30*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { child.Stop() })
		c.Addr = child.Addr
		return
	}
	cmd := c.Command(append(extra, "--listen", "ws://127.0.0.1:0")...)
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); pw.Close() })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			c.Stderr.Write([]byte(sc.Text() + "\n"))
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case u := <-found:
		a, err := wsproxy.ParseURL(u)
		if err != nil {
			t.Fatal(err)
		}
		c.Addr = a
	case <-time.After(30 * time.Second):
		t.Fatalf("codex %s printed no listening URL:\n%s", c.Version, c.Stderr)
	}
}

// Client is a test client, over WebSocket (Dial) or stdio (Stdio); it reads every
// message into a log.
type Client struct {
	Conn *websocket.Conn // nil over stdio
	t    testing.TB
	send func([]byte) error
	recv func() ([]byte, error)

	mu     sync.Mutex
	cond   *sync.Cond
	got    [][]byte
	sent   [][]byte
	closed error
	pongs  []string
}

// Dialer returns a gorilla dialer reaching a (over its unix socket for unix://).
func Dialer(a wsproxy.Addr) *websocket.Dialer {
	d := &websocket.Dialer{HandshakeTimeout: 30 * time.Second, ReadBufferSize: 64 << 10, WriteBufferSize: 64 << 10}
	if a.Scheme == "unix" {
		d.NetDialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			var nd net.Dialer
			return nd.DialContext(ctx, "unix", a.Path)
		}
	}
	return d
}

// Dial connects to a with header; on a refused upgrade it returns the response.
func Dial(t testing.TB, a wsproxy.Addr, header http.Header) (*Client, *http.Response, error) {
	return DialBuffer(t, a, header, 0)
}

// DialBuffer is Dial with a write buffer of size bytes: gorilla sends a message in
// frames of at most its buffer, so a message that must cross as one frame needs a
// buffer larger than itself.
func DialBuffer(t testing.TB, a wsproxy.Addr, header http.Header, size int) (*Client, *http.Response, error) {
	t.Helper()
	d := Dialer(a)
	if size > 0 {
		d.WriteBufferSize = size
	}
	conn, resp, err := d.Dial(wsproxy.DialURL(a, ""), header)
	if err != nil {
		return nil, resp, err
	}
	conn.SetReadLimit(-1)
	c := &Client{Conn: conn, t: t,
		send: func(b []byte) error { return conn.WriteMessage(websocket.TextMessage, b) },
		recv: func() ([]byte, error) { _, p, err := conn.ReadMessage(); return p, err }}
	c.cond = sync.NewCond(&c.mu)
	conn.SetPongHandler(func(p string) error {
		c.mu.Lock()
		c.pongs = append(c.pongs, p)
		c.cond.Broadcast()
		c.mu.Unlock()
		return nil
	})
	go c.read()
	t.Cleanup(func() { conn.Close() })
	return c, resp, nil
}

// MustDial is Dial failing the test on any error.
func MustDial(t testing.TB, a wsproxy.Addr, header http.Header) *Client {
	t.Helper()
	c, resp, err := Dial(t, a, header)
	if err != nil {
		status := ""
		if resp != nil {
			status = resp.Status
		}
		t.Fatalf("dial %s: %v %s", a, err, status)
	}
	return c
}

// Stdio is a client of a server's stdio: one message per line.
func Stdio(t testing.TB, stdin io.Writer, stdout io.Reader) *Client {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 64<<20)
	c := &Client{t: t,
		send: func(b []byte) error { _, err := stdin.Write(append(b, '\n')); return err },
		recv: func() ([]byte, error) {
			if sc.Scan() {
				return bytes.Clone(sc.Bytes()), nil
			}
			if sc.Err() != nil {
				return nil, sc.Err()
			}
			return nil, io.EOF
		}}
	c.cond = sync.NewCond(&c.mu)
	go c.read()
	return c
}

func (c *Client) read() {
	for {
		p, err := c.recv()
		c.mu.Lock()
		if err != nil {
			c.closed = err
			c.cond.Broadcast()
			c.mu.Unlock()
			return
		}
		c.got = append(c.got, p)
		c.cond.Broadcast()
		c.mu.Unlock()
	}
}

// Send writes one text message.
func (c *Client) Send(msg string) {
	c.t.Helper()
	c.mu.Lock()
	c.sent = append(c.sent, []byte(msg))
	c.mu.Unlock()
	if err := c.send([]byte(msg)); err != nil {
		c.t.Fatalf("send: %v", err)
	}
}

// Got is every message received so far; Sent every message sent.
func (c *Client) Got() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]byte(nil), c.got...)
}
func (c *Client) Sent() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]byte(nil), c.sent...)
}

// Pongs is the payloads of the pongs received so far.
func (c *Client) Pongs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.pongs...)
}

// Closed waits until the connection is gone and returns the read error.
func (c *Client) Closed(d time.Duration) error {
	deadline := time.AfterFunc(d, func() { c.mu.Lock(); c.cond.Broadcast(); c.mu.Unlock() })
	defer deadline.Stop()
	end := time.Now().Add(d)
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.closed == nil && time.Now().Before(end) {
		c.cond.Wait()
	}
	return c.closed
}

// Wait returns the first message at or after index from that pred accepts, and its
// index, answering any server request with {"decision":"accept"} on the way.
func (c *Client) Wait(from int, what string, pred func(gjson.Result) bool) (gjson.Result, int) {
	c.t.Helper()
	end := time.Now().Add(Timeout)
	timer := time.AfterFunc(Timeout, func() { c.mu.Lock(); c.cond.Broadcast(); c.mu.Unlock() })
	defer timer.Stop()
	answered := map[int]bool{}
	for i := from; ; {
		c.mu.Lock()
		for i >= len(c.got) && c.closed == nil && time.Now().Before(end) {
			c.cond.Wait()
		}
		if i >= len(c.got) {
			err := c.closed
			var last string
			if n := len(c.got); n > 0 {
				last = string(c.got[n-1])
			}
			c.mu.Unlock()
			c.t.Fatalf("waiting for %s: connection ended (%v) or timed out; last message %.300s", what, err, last)
		}
		m := gjson.ParseBytes(c.got[i])
		c.mu.Unlock()
		if m.Get("method").Exists() && m.Get("id").Exists() && !answered[i] {
			answered[i] = true
			c.Send(`{"id":` + m.Get("id").Raw + `,"result":{"decision":"accept"}}`)
		}
		if pred(m) {
			return m, i
		}
		i++
	}
}

// Response matches the response to request id.
func Response(id string) func(gjson.Result) bool {
	return func(m gjson.Result) bool { return m.Get("id").Raw == id && !m.Get("method").Exists() }
}

// Method matches a message with the given method.
func Method(method string) func(gjson.Result) bool {
	return func(m gjson.Result) bool { return m.Get("method").Str == method }
}

// Initialize runs the handshake with client name name; it returns the index after
// the response.
func (c *Client) Initialize(name string) int {
	c.t.Helper()
	c.Send(`{"id":1,"method":"initialize","params":{"clientInfo":{"name":` + quote(name) + `,"title":"t","version":"1"}}}`)
	r, i := c.Wait(0, "initialize response", Response("1"))
	if r.Get("error").Exists() {
		c.t.Fatalf("initialize: %s", r.Raw)
	}
	c.Send(`{"method":"initialized"}`)
	return i + 1
}

// StartThread starts a thread in work (request id 2) and returns its id and the
// index after the response.
func (c *Client) StartThread(from int, work string) (string, int) {
	c.t.Helper()
	c.Send(`{"id":2,"method":"thread/start","params":{"cwd":` + quote(work) + `,"approvalPolicy":"never"}}`)
	r, i := c.Wait(from, "thread/start response", Response("2"))
	id := r.Get("result.thread.id").Str
	if id == "" {
		c.t.Fatalf("thread/start: %s", r.Raw)
	}
	return id, i + 1
}

// StartTurn sends turn/start (request id 3) with text on thread.
func (c *Client) StartTurn(thread, text string) {
	c.Send(`{"id":3,"method":"turn/start","params":{"threadId":` + quote(thread) + `,"input":[{"type":"text","text":` + quote(text) + `}]}}`)
}

// Turn runs a full turn: handshake, thread, turn until turn/completed. It returns
// the thread id.
func (c *Client) Turn(work string) string {
	c.t.Helper()
	i := c.Initialize("wstest")
	thread, i := c.StartThread(i, work)
	c.StartTurn(thread, "say hello")
	c.Wait(i, "turn/completed", Method("turn/completed"))
	return thread
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// Lines joins messages for a failure message.
func Lines(ms [][]byte) string {
	var b strings.Builder
	for i, m := range ms {
		fmt.Fprintf(&b, "%3d %.200s\n", i+1, m)
	}
	return b.String()
}

// ListenURL is where a test's relay or replay listens: a unix socket in a fresh
// temporary directory, or a free loopback port.
func ListenURL(t testing.TB, scheme string) string {
	if scheme == "unix" {
		return "unix://" + filepath.Join(t.TempDir(), "s.sock")
	}
	return "ws://127.0.0.1:0"
}
