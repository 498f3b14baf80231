// Package wsrecord records codex app-server sessions that speak WebSocket (ws://,
// unix://): it runs a wsproxy.Relay in front of the server and gives each client
// connection its own recording through the record pipeline, named so that the
// recordings of a run sort in connection order. It does not move bytes itself
// (wsproxy does) and does not choose the pipeline's stages (NewSession does).
package wsrecord

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/codexrec/codexrec/sanitize"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
	"github.com/codexrec/codexrec/wsproxy"
)

// Recorder relays client connections to Upstream and records each one into Dir.
// Only Dir and Upstream are required.
type Recorder struct {
	// Dir is where the recordings go, one per connection:
	// SESSION-NNNN.jsonl, NNNN the connection number.
	Dir string
	// Upstream is the app-server the clients are relayed to.
	Upstream wsproxy.Addr
	// NewSession builds one connection's pipeline (validation, sanitizing, leak
	// guard); nil records frames as they crossed, with no stage.
	NewSession func() (*record.Session, error)
	// Header is the template of every recording's header (Codexrec, Command); the
	// socket facts are filled in per connection.
	Header recorder.Header
	// Session identifies the run in every header; empty means NewSessionID().
	Session string
	// Log, when set, gets one line per connection as it ends.
	Log io.Writer
	// Relay settings (zero: wsproxy's defaults).
	QueueSize int
	ReadLimit int64
	// MemoryBudget bounds the bytes of messages held in memory across all
	// connections; a read waits for room past it. Zero means
	// wsproxy.DefaultMemoryBudget (512 MiB).
	MemoryBudget int64
	// ClientQueue bounds the messages waiting for a client that does not read,
	// which is then disconnected; zero means wsproxy.DefaultClientQueue.
	ClientQueue int

	mu      sync.Mutex
	relay   *wsproxy.Relay
	results []Result
}

// Result is how one connection's recording ended.
type Result struct {
	Conn    int
	Path    string // the published recording ("" when it could not be created)
	Trailer recorder.Trailer
	Report  record.Report
	// Err is the recording's failure: the leak guard's refusal (a
	// *sanitize.LeakError, the recording is then not published), an I/O error, or
	// a pipeline error while relaying went on (wrapping record.ErrTap).
	Err error
}

// NewSessionID is a session id that sorts by time: 20261201T171630Z-3f9a1c.
func NewSessionID() string {
	var b [3]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// Serve accepts connections on ln until ctx is done, then lets every connection
// drain what is readable (until quiet for wsproxy.DefaultShutdownGrace), drops
// those still open and returns once every recording is finished. Results says how each ended.
func (r *Recorder) Serve(ctx context.Context, ln net.Listener) error {
	if r.Session == "" {
		r.Session = NewSessionID()
	}
	rl := &wsproxy.Relay{Upstream: r.Upstream, Open: r.open, QueueSize: r.QueueSize, ReadLimit: r.ReadLimit,
		MemoryBudget: r.MemoryBudget, ClientQueue: r.ClientQueue}
	r.mu.Lock()
	r.relay = rl
	r.mu.Unlock()
	return rl.Serve(ctx, ln)
}

// Budget is the memory budget of the connections being served (nil before Serve).
func (r *Recorder) Budget() *wsproxy.Budget {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.relay == nil {
		return nil
	}
	return r.relay.Budget()
}

// Results are the connections that ended so far, in the order they ended.
func (r *Recorder) Results() []Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Result(nil), r.results...)
}

// Path is where connection n's recording is published.
func (r *Recorder) Path(n int) string {
	return filepath.Join(r.Dir, fmt.Sprintf("%s-%04d.jsonl", r.Session, n))
}

func (r *Recorder) open(c *wsproxy.Conn) (wsproxy.Tap, error) {
	s := &record.Session{}
	if r.NewSession != nil {
		var err error
		if s, err = r.NewSession(); err != nil {
			return nil, err
		}
	}
	h := r.Header
	h.Command = append([]string(nil), h.Command...)
	h.Notes = append([]string(nil), h.Notes...)
	headers := wsproxy.RedactHeader(c.Header)
	if z := s.Sanitizer; z != nil {
		for k, vs := range headers {
			headers[k] = z.Strings(vs)
		}
	}
	h.Socket = &recorder.SocketInfo{Transport: c.Transport, Session: r.Session, Connection: c.N,
		Path: c.Target, Headers: headers}
	path := r.Path(c.N)
	if err := s.Create(path, h, recorder.Options{}); err != nil {
		return nil, fmt.Errorf("connection %d: %w", c.N, err)
	}
	return &tap{r: r, s: s, n: c.N, path: path}, nil
}

// tap feeds one connection's frames to its record.Session.
type tap struct {
	r    *Recorder
	s    *record.Session
	n    int
	path string
}

func (t *tap) Frame(f *wire.Frame) error { return t.s.Frame(f) }
func (t *tap) Idle() error               { return t.s.Writer.Flush() }

func (t *tap) End(e wsproxy.End) {
	tr := recorder.Trailer{}
	switch e.By {
	case wsproxy.SideClient:
		tr.Ended = recorder.EndClientClosed
	case wsproxy.SideServer:
		tr.Ended = recorder.EndServerClosed
	default:
		tr.Ended, tr.Signal = recorder.EndSignal, "shutdown"
	}
	var notes []string
	slow := errors.Is(e.Err, wsproxy.ErrSlowClient)
	if e.Err != nil && !slow {
		notes = append(notes, e.Err.Error())
	}
	if n := e.Undelivered[wire.ClientToServer]; n > 0 {
		notes = append(notes, fmt.Sprintf("the last %d c2s message(s) recorded never reached the server (it had gone)", n))
	}
	tr.Error = strings.Join(notes, "; ")
	if n := e.Undelivered[wire.ServerToClient]; n > 0 {
		// As the stdio proxy reports a client that stopped reading.
		tr.ClientError = "the client had gone"
		if slow {
			tr.ClientError = e.Err.Error()
		}
		tr.LastDelivered, tr.Undelivered = e.LastDelivered, n
	}
	if e.TapErr != nil {
		tr.Ended, tr.Error = recorder.EndError, e.TapErr.Error()
	}
	tr, err := t.s.Finish(tr)
	path := t.path
	if err == nil {
		path = t.s.Writer.PublishedPath()
	}
	if err == nil && e.TapErr != nil {
		err = fmt.Errorf("%w: %w", record.ErrTap, e.TapErr)
	}
	res := Result{Conn: t.n, Path: path, Trailer: tr, Report: t.s.Report(), Err: err}
	if t.r.Log != nil {
		how := describeEnd(e)
		if err != nil {
			fmt.Fprintf(t.r.Log, "connection %d (%s): %s\n", t.n, how, sanitize.MaskText(err.Error()))
		} else {
			fmt.Fprintf(t.r.Log, "connection %d (%s): %s, %d frames\n", t.n, how, path, tr.Frames["c2s"]+tr.Frames["s2c"])
		}
	}
	t.r.mu.Lock()
	t.r.results = append(t.r.results, res)
	t.r.mu.Unlock()
}

func describeEnd(e wsproxy.End) string {
	s := "ended by " + e.By.String()
	switch {
	case e.By == wsproxy.SideShutdown:
		s = "ended at shutdown"
	case e.Code >= 0:
		s += fmt.Sprintf(", close %d", e.Code)
	default:
		s += ", dropped"
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// ErrNoUpstream says Run was given neither an upstream nor a command to start one.
var ErrNoUpstream = errors.New("no upstream: give an upstream URL or a command to start the app-server")
