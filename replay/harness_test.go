package replay_test

import (
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/testing/codextest"
	"github.com/codexrec/codexrec/proxy"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/wire"
)

// waitTimeout bounds every wait for a line; a replay answers in microseconds and the
// real server in well under a second, so hitting it means something is stuck.
const waitTimeout = 20 * time.Second

// conn is a line-level client: it writes lines and reads the lines the server sends.
type conn struct {
	t     testing.TB
	w     io.WriteCloser
	lines chan string
}

func newConn(t testing.TB, w io.WriteCloser, r io.Reader) *conn {
	c := &conn{t: t, w: w, lines: make(chan string, 4096)}
	go func() {
		defer close(c.lines)
		rd := wire.NewReader(r)
		for {
			line, err := rd.ReadLine()
			if len(line) > 0 {
				c.lines <- string(line)
			}
			if err != nil {
				return
			}
		}
	}()
	return c
}

func (c *conn) send(lines ...string) {
	c.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(c.w, l+"\n"); err != nil {
			c.t.Fatalf("sending %s: %v", l, err)
		}
	}
}

// next returns the next line the server sent, or "" at EOF.
func (c *conn) next() string {
	c.t.Helper()
	select {
	case l := <-c.lines:
		return l
	case <-time.After(waitTimeout):
		c.t.Fatalf("no line from the server within %v", waitTimeout)
		return ""
	}
}

// until reads lines up to and including the first one for which stop is true.
func (c *conn) until(what string, stop func(line string) bool) []string {
	c.t.Helper()
	var got []string
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				c.t.Fatalf("EOF while waiting for %s; got %d lines:\n%s", what, len(got), strings.Join(got, ""))
			}
			got = append(got, l)
			if stop(l) {
				return got
			}
		case <-time.After(waitTimeout):
			c.t.Fatalf("waited %v for %s; got %d lines:\n%s", waitTimeout, what, len(got), strings.Join(got, ""))
		}
	}
}

// response reads up to the answer to id (its JSON text, e.g. `1` or `"a"`).
func (c *conn) response(id string) []string {
	c.t.Helper()
	return c.until("the answer to id "+id, func(l string) bool {
		r := gjson.Get(l, "id")
		return r.Exists() && r.Raw == id && !gjson.Get(l, "method").Exists()
	})
}

// notification reads up to the first notification of method.
func (c *conn) notification(method string) []string {
	c.t.Helper()
	return c.until(method, func(l string) bool {
		return gjson.Get(l, "method").Str == method && !gjson.Get(l, "id").Exists()
	})
}

// rest reads every line until EOF.
func (c *conn) rest() []string {
	c.t.Helper()
	var got []string
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				return got
			}
			got = append(got, l)
		case <-time.After(waitTimeout):
			c.t.Fatalf("no EOF within %v", waitTimeout)
		}
	}
}

// served is a replay.Server running in-process on pipes.
type served struct {
	*conn
	done chan error
	log  *syncBuffer
}

// serve starts srv on pipes and returns the client's end. Log is captured unless set.
func serve(t testing.TB, srv *replay.Server) *served {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &served{conn: newConn(t, inW, outR), done: make(chan error, 1), log: &syncBuffer{}}
	if srv.Log == nil {
		srv.Log = s.log
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		err := srv.Serve(ctx, inR, outW)
		outW.Close()
		s.done <- err
	}()
	return s
}

// playClient sends the recorded client's lines, reading up to the response to each
// request but turn/start (its answer comes among the turn's notifications, which the
// test reads itself). It returns the lines read and when turn/start was sent.
func (s *served) playClient(sc *replay.Script) (got []string, turnSent time.Time) {
	s.t.Helper()
	for _, cf := range sc.Client {
		if cf.Msg.Method == "turn/start" {
			turnSent = time.Now()
		}
		s.send(strings.TrimSuffix(string(cf.Line), "\n"))
		if cf.Msg.Kind == wire.KindRequest && cf.Msg.Method != "turn/start" {
			got = append(got, s.response(string(cf.Msg.ID))...)
		}
	}
	return got, turnSent
}

// finish closes the client's side and returns Serve's error.
func (s *served) finish() error {
	s.t.Helper()
	s.w.Close()
	select {
	case err := <-s.done:
		return err
	case <-time.After(waitTimeout):
		s.t.Fatalf("Serve did not return within %v of the client's EOF", waitTimeout)
		return nil
	}
}

// syncBuffer collects a server's log while a test may quote it.
type syncBuffer = codextest.SyncBuffer

// lifetime is one run of the real server while recording; drive talks to it.
type lifetime func(c *conn, workspace string)

// recordReal records a session with the real codex app-server (newest pinned
// version), one server process per lifetime, through the proxy and the recorder, as
// `codexrec record` does. Each lifetime starts with a segment entry and ends with an
// exit entry, as a capture's do. No model is reachable: these sessions never start a
// turn.
func recordReal(t testing.TB, lifetimes ...lifetime) string {
	t.Helper()
	bin := codextest.Binary(t, codexbin.Newest)
	env, _ := codextest.Env(t)
	work := t.TempDir()
	path := filepath.Join(t.TempDir(), "real.jsonl")
	w, err := recorder.Create(path, recorder.Header{Codexrec: "test", Command: []string{"codex", "app-server"}}, recorder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var tapMu sync.Mutex
	p := &proxy.Proxy{Tap: wire.TapFuncs{
		OnFrame: func(f *wire.Frame) error {
			tapMu.Lock()
			defer tapMu.Unlock()
			return w.WriteFrame(f)
		},
		OnIdle: w.Flush,
	}}
	for n, drive := range lifetimes {
		if err := w.WriteEntry(recorder.Entry{Type: recorder.TypeSegment, Time: w.Since(), Segment: n + 1,
			Command: []string{"codex", "app-server"}}); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, codextest.FakeProviderArgs("http://127.0.0.1:9/v1")...)
		cmd.Env, cmd.Dir = env, work
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		c := newConn(t, inW, outR)
		type ran struct {
			res proxy.Result
			err error
		}
		done := make(chan ran, 1)
		go func() {
			res, err := p.Run(t.Context(), cmd, inR, outW, io.Discard)
			outW.Close()
			inR.Close()
			done <- ran{res, err}
		}()
		drive(c, work)
		inW.Close()
		c.rest()
		r := <-done
		if r.err != nil {
			t.Fatalf("running codex: %v", r.err)
		}
		if err := w.WriteEntry(recorder.Entry{Type: recorder.TypeExit, Time: w.Since(), Segment: n + 1,
			ExitCode: r.res.ExitCode, Signal: r.res.KilledBy}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(recorder.Trailer{Ended: recorder.EndClientEOF}); err != nil {
		t.Fatal(err)
	}
	return path
}

func load(t testing.TB, path string, segment int) *replay.Script {
	t.Helper()
	sc, err := replay.LoadFile(path, segment)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}
