// Package serve is codexrec's live inspector: an HTTP handler (standard library
// only) that lists every recording under some directories as they are written, and
// serves each session's timeline, raw frames, filters, search across sessions, diffs
// and downloads to one self-contained page, masked and escaped. It does not record,
// and it never writes to the directories it serves.
package serve

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Options configure a Server. The zero value serves the current directory, masked,
// polling every 250ms, with a random access token.
type Options struct {
	// Dirs are the directories whose recordings (*.jsonl, including those still being
	// written) are listed, recursively; none means ".".
	Dirs []string
	// Token is the access token every request must carry (as ?token= or the cookie
	// the first page load sets); empty draws a random one.
	Token string
	// Reveal serves recorded text as it is, without masking secret-shaped text.
	Reveal bool
	// Poll is how often the directories and growing recordings are looked at.
	Poll time.Duration
	// Command is how the page spells codexrec in the commands it offers to copy
	// ("codexrec" when empty).
	Command string
}

// Server serves the inspector. Create it with New, serve Handler, and Close it.
type Server struct {
	dirs    []string
	token   string
	reveal  bool
	poll    time.Duration
	command string

	stop     chan struct{}
	stopOnce sync.Once

	mu       sync.Mutex
	sessions map[string]*session // by logical path
	byID     map[string]*session
	rejected map[string]os.FileInfo // .jsonl files that are not recordings
	reports  map[string]*report     // upgrade report pages, by path
	version  int64
	changed  chan struct{} // closed and replaced on every change
}

// New starts watching the directories (in the background until Close).
func New(opts Options) (*Server, error) {
	s := &Server{token: opts.Token, reveal: opts.Reveal, poll: opts.Poll, command: opts.Command,
		stop: make(chan struct{}), sessions: map[string]*session{}, byID: map[string]*session{},
		rejected: map[string]os.FileInfo{}, reports: map[string]*report{}, changed: make(chan struct{})}
	if s.poll <= 0 {
		s.poll = 250 * time.Millisecond
	}
	if s.command == "" {
		s.command = "codexrec"
	}
	dirs := opts.Dirs
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("serve: %w", err)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("serve: %w", err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("serve: %s is not a directory", d)
		}
		s.dirs = append(s.dirs, abs)
	}
	if s.token == "" {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("serve: token: %w", err)
		}
		s.token = hex.EncodeToString(b)
	}
	s.refresh()
	go s.watch()
	return s, nil
}

// Token is the access token.
func (s *Server) Token() string { return s.token }

// Close stops watching and reading; open event streams end.
func (s *Server) Close() error {
	s.stopOnce.Do(func() { close(s.stop) })
	return nil
}

// bump records a change; s.mu is held.
func (s *Server) bump() {
	s.version++
	close(s.changed)
	s.changed = make(chan struct{})
}

// notify is bump for callers that do not hold s.mu.
func (s *Server) notify() {
	s.mu.Lock()
	s.bump()
	s.mu.Unlock()
}

// IsLoopback reports whether a listen address (host:port) is on the loopback
// interface only. An empty host listens everywhere: not loopback.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Serve serves h on l until ctx ends, then shuts down.
func Serve(ctx context.Context, l net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

const cookieName = "codexrec_token"

// authorized checks the token in the query or the cookie, in constant time.
func (s *Server) authorized(r *http.Request) bool {
	if t := r.URL.Query().Get("token"); t != "" {
		return subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
	}
	c, err := r.Cookie(cookieName)
	return err == nil && subtle.ConstantTimeCompare([]byte(c.Value), []byte(s.token)) == 1
}
