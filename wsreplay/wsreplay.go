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
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/wsproxy"
)

// ReadToken is the bearer token held in the file at path (Server.Token): its first
// line, without surrounding white space. Its error is the file's.
func ReadToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line), nil
}

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
	// MemoryBudget bounds the bytes of messages held in memory across all
	// connections (client messages read, replayed messages queued for a client):
	// a read or a queued message waits for room past it. Zero means
	// wsproxy.DefaultMemoryBudget (512 MiB).
	MemoryBudget int64
	// ClientQueue bounds the messages waiting for a client that does not read, as
	// the app-server bounds its own: the client is then disconnected (its
	// Result.Err wraps wsproxy.ErrSlowClient). Zero means wsproxy.DefaultClientQueue.
	ClientQueue int
	// ShutdownGrace is how quiet a connection must be after Serve's context ends
	// before it is dropped: until then the client's messages are read and
	// answered. Zero means wsproxy.DefaultShutdownGrace; negative, none. The drain
	// lasts at most wsproxy.DefaultDrainLimit.
	ShutdownGrace time.Duration
	// Ready, when set, is called by ListenAndServe with the bound URL once clients
	// may connect (a command standing in for codex prints codex's banner there).
	Ready func(url string)

	mu      sync.Mutex
	next    int
	n       int
	headers []recorder.Header
	results []Result
	conns   sync.WaitGroup
	ctx     context.Context
	scripts map[string]*loaded // by path: one shared script per recording
	mem     *wsproxy.Budget
}

// Budget is the memory budget shared by the connections (for figures: Peak).
func (s *Server) Budget() *wsproxy.Budget {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mem == nil {
		s.mem = wsproxy.NewBudget(s.MemoryBudget)
	}
	return s.mem
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
	all, err := filepath.Glob(filepath.Join(path, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range all { // a pipe so named would wait for a writer when opened
		if fi, err := os.Stat(n); err == nil && fi.Mode().IsRegular() {
			names = append(names, n)
		}
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

// Serve accepts connections on ln until ctx is done, then lets every connection
// drain what its client sent (read and answered until quiet for ShutdownGrace),
// drops it and returns once every replay has ended.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if s.headers == nil {
		if err := s.Check(); err != nil {
			return err
		}
	}
	s.mu.Lock()
	s.ctx = ctx
	s.mu.Unlock()
	return wsproxy.ServeHandler(ctx, ln, s, s.conns.Wait)
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

// ListenOptions say where ListenAndServe listens, as wsrecord.Options do for a
// record run. Listen is required.
type ListenOptions struct {
	Listen string // ws://HOST:PORT (port 0 picks one) or unix://PATH
	// URLFile, when set, receives the bound URL (written whole, then renamed) once
	// clients may connect.
	URLFile string
	// Listening, when set, is called with the bound URL before URLFile is written,
	// so that whoever waits for the file finds the announcement already made.
	Listening func(url string)
}

// ListenAndServe listens where o says, announces the bound URL (o.Listening, then
// o.URLFile, then Ready) and serves until ctx is done. It is the whole of
// `codexrec replay --listen` as one call.
func (s *Server) ListenAndServe(ctx context.Context, o ListenOptions) error {
	if err := s.Check(); err != nil {
		return err
	}
	a, err := wsproxy.ParseURL(o.Listen)
	if err != nil {
		return err
	}
	ln, bound, err := wsproxy.Listen(a)
	if err != nil {
		return err
	}
	if o.Listening != nil {
		o.Listening(bound.String())
	}
	if o.URLFile != "" {
		if err := wsproxy.WriteURLFile(o.URLFile, bound.String()); err != nil {
			ln.Close()
			return err
		}
	}
	if s.Ready != nil {
		s.Ready(bound.String())
	}
	return s.Serve(ctx, ln)
}
