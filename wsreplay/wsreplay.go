// Package wsreplay serves recordings as a fake codex app-server over WebSocket
// (ws://, unix://): each client connection gets a fresh replay of the next recording,
// one JSON-RPC message per text frame, with the real server's health routes, Origin
// refusal and bearer-token check. It does not match or send messages itself (package
// replay does, on a line stream this package adapts messages to and from).
package wsreplay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/wire"
	"github.com/codexrec/codexrec/wsproxy"
)

// Server serves Recordings, one per connection in order. Only Recordings is
// required.
type Server struct {
	// Recordings are the recordings' paths (Recordings or FindRecordings).
	Recordings []string
	// Loop starts over once every recording has been served; without it a further
	// connection is refused (503).
	Loop bool
	// Configure, when set, sets up each connection's replay.Server (Mode, Speed,
	// Faults...); Script is set by Serve.
	Configure func(*replay.Server)
	// Token is the bearer token accepted when the recording says the client
	// authenticated; empty accepts any bearer token (the recording never holds it).
	Token string
	// Log, when set, gets each replay's diagnostics and one line per connection.
	Log io.Writer

	mu      sync.Mutex
	next    int
	n       int
	headers []recorder.Header
	results []Result
	conns   sync.WaitGroup
	ctx     context.Context
}

// Result is how one connection's replay ended.
type Result struct {
	Conn      int
	Recording string
	// Err is replay.Server.Serve's error: nil when every client message matched and
	// every expected one came, else wrapping replay.ErrNoMatch and/or
	// replay.ErrUnused, or an I/O error.
	Err error
}

// ErrExhausted is the refusal of a connection once every recording has been served.
var ErrExhausted = errors.New("every recording has been served")

// FindRecordings returns path when it is a file, or the recordings (*.jsonl) in the
// directory path, sorted by name: record --listen names them in connection order.
func FindRecordings(path string) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return []string{path}, nil
	}
	names, err := filepath.Glob(filepath.Join(path, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s holds no recordings (*.jsonl)", path)
	}
	sort.Strings(names)
	return names, nil
}

// Check loads every recording once, so a bad one fails before clients connect.
func (s *Server) Check() error {
	if len(s.Recordings) == 0 {
		return errors.New("wsreplay: no recordings")
	}
	s.headers = make([]recorder.Header, len(s.Recordings))
	for i, p := range s.Recordings {
		sc, err := replay.LoadFile(p, 1)
		if err != nil {
			return err
		}
		s.headers[i] = sc.Header
	}
	return nil
}

// Serve accepts connections on ln until ctx is done, then drops every connection
// and returns once every replay has ended.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if s.headers == nil {
		if err := s.Check(); err != nil {
			return err
		}
	}
	s.mu.Lock()
	s.ctx = ctx
	s.mu.Unlock()
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 30 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	srv.Close()
	s.conns.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// Results are the connections that ended so far, in the order they ended.
func (s *Server) Results() []Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Result(nil), s.results...)
}

// peek is the recording the next connection gets, or -1.
func (s *Server) peek() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next >= len(s.Recordings) {
		if !s.Loop {
			return -1
		}
		s.next = 0
	}
	return s.next
}

// take assigns the next recording and a connection number.
func (s *Server) take() (idx, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next >= len(s.Recordings) {
		if !s.Loop {
			return -1, 0
		}
		s.next = 0
	}
	idx = s.next
	s.next++
	s.n++
	return idx, s.n
}

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
		http.Error(w, "codexrec replay: "+ErrExhausted.Error()+" (--loop starts over)", http.StatusServiceUnavailable)
		return
	}
	s.conns.Add(1)
	defer s.conns.Done()
	err := s.serveConn(w, req, s.Recordings[idx])
	if s.Log != nil {
		if err != nil {
			fmt.Fprintf(s.Log, "codexrec replay: connection %d (%s): %v\n", n, s.Recordings[idx], err)
		} else {
			fmt.Fprintf(s.Log, "codexrec replay: connection %d (%s): replayed\n", n, s.Recordings[idx])
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

func (s *Server) serveConn(w http.ResponseWriter, req *http.Request, path string) error {
	sc, err := replay.LoadFile(path, 1)
	if err != nil {
		http.Error(w, "codexrec replay: "+err.Error(), http.StatusInternalServerError)
		return err
	}
	// The replay writes lines; a socket recording's frames carry no newline, and
	// the newline is what ends a message here. Each connection loads its own
	// script, so this changes nobody else's.
	for i := range sc.Server {
		if l := sc.Server[i].Line; !wire.HasNewline(l) {
			sc.Server[i].Line = append(l[:len(l):len(l)], '\n')
		}
	}
	c, err := websocket.Accept(w, req, &websocket.AcceptOptions{InsecureSkipVerify: true, CompressionMode: websocket.CompressionDisabled})
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
	ctx, cancel := context.WithCancel(base)
	defer cancel()
	defer c.CloseNow() // the app-server never sends a close frame: it drops

	srv := &replay.Server{}
	if s.Configure != nil {
		s.Configure(srv)
	}
	srv.Script = sc
	if srv.Log == nil {
		srv.Log = s.Log
	}
	in := newLineReader(ctx, c)
	out := &messageWriter{ctx: ctx, c: c}
	err = srv.Serve(ctx, in, out)
	if base.Err() != nil && errors.Is(err, context.Canceled) {
		return nil // shut down
	}
	return err
}

// ListenAndServe listens on url (ws://HOST:PORT, port 0 picks one, or
// unix://PATH), prints "codexrec replay: listening on URL" on stderr, writes the
// bound URL to urlFile when set, and serves until ctx is done. It is the whole of
// `codexrec replay --listen` as one call.
func (s *Server) ListenAndServe(ctx context.Context, url, urlFile string, stderr io.Writer) error {
	if err := s.Check(); err != nil {
		return err
	}
	a, err := wsproxy.ParseURL(url)
	if err != nil {
		return err
	}
	ln, bound, err := wsproxy.Listen(a)
	if err != nil {
		return err
	}
	if urlFile != "" {
		if err := wsproxy.WriteURLFile(urlFile, bound.String()); err != nil {
			ln.Close()
			return err
		}
	}
	if stderr != nil {
		fmt.Fprintf(stderr, "codexrec replay: listening on %s\n", bound)
	}
	return s.Serve(ctx, ln)
}
