package wsreplay

import (
	"context"
	"errors"
	"fmt"
	"github.com/codexrec/codexrec/sanitize"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/wire"
	"github.com/codexrec/codexrec/wsproxy"
)

// ServeHTTP answers as the real server does: any Origin header is refused (403) on a
// ws:// recording, /readyz and /healthz answer 200, an upgrade gets the next replay.
func (s *Server) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	idx := s.peek()
	var h recorder.Header
	if idx >= 0 {
		h = s.headers[idx]
	}
	unix := h.Socket != nil && h.Socket.Transport == "unix"
	if _, ok := req.Header["Origin"]; ok && !unix {
		w.WriteHeader(http.StatusForbidden)
		return
	}
	if !isUpgrade(req) {
		switch req.URL.Path {
		case "/readyz", "/healthz":
			w.WriteHeader(http.StatusOK)
		default:
			http.Error(w, "Connection header did not include 'upgrade'", http.StatusBadRequest)
		}
		return
	}
	if msg := s.authFailure(h, req.Header); msg != "" {
		http.Error(w, msg, http.StatusUnauthorized)
		return
	}
	idx, n := s.take()
	if idx < 0 {
		http.Error(w, "replay: "+ErrExhausted.Error(), http.StatusServiceUnavailable)
		return
	}
	s.conns.Add(1)
	defer s.conns.Done()
	err := s.serveConn(w, req, s.Recordings[idx])
	if s.Log != nil {
		if err != nil {
			fmt.Fprintf(s.Log, "connection %d (%s): %s\n", n, s.Recordings[idx], sanitize.MaskText(err.Error()))
		} else {
			fmt.Fprintf(s.Log, "connection %d (%s): replayed\n", n, s.Recordings[idx])
		}
	}
	s.mu.Lock()
	s.results = append(s.results, Result{Conn: n, Recording: s.Recordings[idx], Err: err})
	s.mu.Unlock()
}

// authFailure is the real server's 401 text when the recording's client sent a
// bearer token and this one's is missing or wrong; "" when it passes.
func (s *Server) authFailure(h recorder.Header, hd http.Header) string {
	if h.Socket == nil || len(h.Socket.Headers["Authorization"]) == 0 {
		return ""
	}
	v := hd.Get("Authorization")
	if v == "" {
		return "missing websocket bearer token"
	}
	scheme, token, ok := strings.Cut(v, " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return "invalid authorization header"
	}
	if s.Token != "" && strings.TrimSpace(token) != s.Token {
		return "invalid websocket bearer token"
	}
	return ""
}

func isUpgrade(req *http.Request) bool {
	return strings.EqualFold(req.Header.Get("Upgrade"), "websocket")
}

// script is the recording at path loaded once and shared, read-only, by every
// connection that replays it: ten clients of one 100 MB recording (--loop) cost one
// copy of it, not ten.
func (s *Server) script(path string) (*replay.Script, error) {
	s.mu.Lock()
	if s.scripts == nil {
		s.scripts = map[string]*loaded{}
	}
	l := s.scripts[path]
	if l == nil {
		l = &loaded{}
		s.scripts[path] = l
	}
	s.mu.Unlock()
	l.once.Do(func() {
		l.sc, l.err = replay.LoadFile(path, 1)
		if l.err != nil {
			return
		}
		// The replay writes lines; a socket recording's frames carry no newline,
		// and the newline is what ends a message here. Done once, before any
		// connection reads the script.
		for i := range l.sc.Server {
			if b := l.sc.Server[i].Line; !wire.HasNewline(b) {
				l.sc.Server[i].Line = append(b[:len(b):len(b)], '\n')
			}
		}
	})
	return l.sc, l.err
}

// loaded is one recording's script, loaded by the first connection that needs it.
type loaded struct {
	once sync.Once
	sc   *replay.Script
	err  error
}

func (s *Server) serveConn(w http.ResponseWriter, req *http.Request, path string) error {
	sc, err := s.script(path)
	if err != nil {
		http.Error(w, "replay: "+err.Error(), http.StatusInternalServerError)
		return err
	}
	pw := &progressWriter{ResponseWriter: w}
	c, err := websocket.Accept(pw, req, &websocket.AcceptOptions{InsecureSkipVerify: true, CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		return err
	}
	c.SetReadLimit(wsproxy.DefaultReadLimit)
	s.mu.Lock()
	base := s.ctx
	s.mu.Unlock()
	if base == nil {
		base = context.Background()
	}
	mem := s.Budget()
	// The connection outlives a shutdown by its drain: reading and answering go on
	// until nothing has been read or written for the grace, then the replay stops
	// (ctx) and the connection is dropped.
	ioCtx, ioCancel := context.WithCancel(context.WithoutCancel(base))
	defer ioCancel()
	ctx, cancel := context.WithCancel(ioCtx)
	defer cancel()
	defer c.CloseNow() // the app-server never sends a close frame: it drops

	var lastActive atomic.Int64
	active := func() { lastActive.Store(time.Now().UnixNano()) }
	go func() {
		select {
		case <-ctx.Done():
			return
		case <-base.Done():
		}
		s.drain(ctx, &lastActive)
		cancel()
	}()

	srv := &replay.Server{}
	if s.Configure != nil {
		s.Configure(srv)
	}
	srv.Script = sc
	if srv.Log == nil {
		srv.Log = s.Log
	}
	gone := make(chan struct{})
	in := newLineReader(ioCtx, c, mem, active, gone)
	queue := s.ClientQueue
	if queue <= 0 {
		queue = wsproxy.DefaultClientQueue
	}
	out := newMessageWriter(ctx, c, mem, queue, active, gone)
	out.sent = pw.sent
	err = srv.Serve(ctx, in, out)
	out.flush()
	if serr := out.stallErr(); serr != nil {
		return serr
	}
	switch {
	case errors.Is(err, errSlowClient):
		return err
	case base.Err() != nil && errors.Is(err, context.Canceled):
		return nil // shut down
	case errors.Is(err, errClientGone):
		return nil
	}
	return err
}

// drain returns once a connection has been quiet for ShutdownGrace after a
// shutdown (or has ended, or the drain limit passed).
func (s *Server) drain(ctx context.Context, lastActive *atomic.Int64) {
	grace := s.ShutdownGrace
	switch {
	case grace < 0:
		return
	case grace == 0:
		grace = wsproxy.DefaultShutdownGrace
	}
	lastActive.Store(time.Now().UnixNano())
	limit := time.NewTimer(wsproxy.DefaultDrainLimit)
	defer limit.Stop()
	tick := time.NewTicker(min(grace/4, 50*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-limit.C:
			return
		case <-tick.C:
			if time.Since(time.Unix(0, lastActive.Load())) >= grace {
				return
			}
		}
	}
}
