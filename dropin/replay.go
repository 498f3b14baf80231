package dropin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/shim"
	"github.com/codexrec/codexrec/stale"
	"github.com/codexrec/codexrec/wsproxy"
	"github.com/codexrec/codexrec/wsreplay"
)

// ReplayOptions are how a recording is served in place of the app-server. The zero
// value serves segment 1 with replay.Server's defaults on os.Stdout, saying nothing.
type ReplayOptions struct {
	// Server is the replay's settings (matching, faults, logs...): each replay
	// serves a copy of it with its Script set. Nil: the zero replay.Server.
	Server *replay.Server
	// Segment is the server lifetime of a recording with restarts to serve (0: 1).
	Segment int
	// Stale, when set, is the staleness policy applied to each recording before
	// it is served (stale.Settings.BeforeReplay): a stale recording is warned of
	// on Log under warn; under fail and rerecord its *stale.RefusedError ends the
	// session before it starts, as the settings' own errors (*stale.LimitError,
	// stale.ErrAction) do. Getenv reads CI for it (nil: os.Getenv).
	Stale  *stale.Settings
	Getenv func(string) string
	// Stdout is the client's side of the stdio session (nil: os.Stdout); an eof
	// fault closes it when it is an io.Closer.
	Stdout io.Writer
	// Stderr receives codex's listening banner (Banner); nil: os.Stderr.
	Stderr io.Writer
	// Log receives notes, one line each: a recording's readable problems, the bound
	// URL of a socket; nil discards them.
	Log io.Writer

	// ReplaySocket's listener: Listen is the URL (ws://HOST:PORT, port 0 picks
	// one, or unix://PATH); URLFile receives the bound URL; Token, when set, is the
	// bearer token a client must send where the recording's did; Loop starts over
	// once every recording was served; Connections > 0 ends the run after that many;
	// MemoryBudget bounds the bytes held in memory (0: the default); Banner prints
	// codex's own listening banner (a stand-in for codex).
	Listen, URLFile, Token string
	Loop                   bool
	Connections            int
	MemoryBudget           int64
	Banner                 bool
}

func (o *ReplayOptions) server() *replay.Server {
	if o.Server == nil {
		return &replay.Server{}
	}
	srv := *o.Server
	srv.Faults = append([]replay.Fault(nil), o.Server.Faults...)
	return &srv
}

func (o *ReplayOptions) log() io.Writer {
	if o.Log == nil {
		return io.Discard
	}
	return o.Log
}

// checkStale applies Stale to the recording at path about to be served: a stale
// recording is warned of on Log under warn, refused under fail and rerecord.
func (o *ReplayOptions) checkStale(path string) error {
	if o.Stale == nil {
		return nil
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	r, err := o.Stale.BeforeReplay(path, shim.IsCI(getenv))
	if err == nil && r.Stale() {
		fmt.Fprintf(o.log(), "warning: stale recording %s\n", r)
	}
	return err
}

// Replay serves the recording at path to the client on in and Stdout. A client
// that hangs up or is interrupted (SIGINT, SIGTERM, SIGHUP) ends the replay as its
// input closing would, a second signal aborts it; a write to a client that went
// away is not a crash (SIGPIPE is ignored for the duration). A mismatch or unused
// frames wrap replay.ErrNoMatch or replay.ErrUnused; a recording that cannot be
// read is the loader's error.
func (o *ReplayOptions) Replay(ctx context.Context, path string, in io.Reader) error {
	srv := o.server()
	seg := o.Segment
	if seg == 0 {
		seg = 1
	}
	var err error
	if srv.Script, err = replay.LoadFile(path, seg); err != nil {
		return err
	}
	if err := o.checkStale(path); err != nil {
		return err
	}
	if w := recorder.Warning(path, srv.Script.Problems); w != "" {
		fmt.Fprintln(o.log(), w)
	}
	// A client that closes stdin and sends SIGTERM at once is common.
	sigs := make(chan os.Signal, 2)
	// Never stopped: a signal that arrives after the session ended (the client's EOF
	// won the race) must not kill the process on its way out with 143.
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	signal.Ignore(syscall.SIGPIPE)
	defer signal.Reset(syscall.SIGPIPE)
	// stdout is an *os.File, an io.Closer: an eof fault closes it, as a crash would.
	return srv.ServeSignals(ctx, in, orStd(o.Stdout, os.Stdout), sigs)
}

// ReplaySocket serves WebSocket clients on Listen: each connection gets a fresh
// replay of the recording at path, or of the next of the directory's recordings,
// until SIGINT, SIGTERM or SIGHUP, ctx being done, or Connections. Its error is
// the listener's, the first connection that failed otherwise, or the first whose
// replay found a mismatch or unused frames (wrapping replay.ErrNoMatch or
// replay.ErrUnused), each "connection N: ...".
func (o *ReplayOptions) ReplaySocket(ctx context.Context, path string) error {
	paths, err := wsreplay.FindRecordings(path)
	if err != nil {
		return err
	}
	for _, p := range paths {
		if err := o.checkStale(p); err != nil {
			return err
		}
	}
	srv := &wsreplay.Server{Recordings: paths, Loop: o.Loop, Log: o.log(), MemoryBudget: o.MemoryBudget,
		Token: o.Token, Configure: func(r *replay.Server) { *r = *o.server() }}
	if o.Banner {
		stderr := orStd(o.Stderr, os.Stderr)
		srv.Ready = func(url string) {
			if strings.HasPrefix(url, "ws://") {
				fmt.Fprint(stderr, wsproxy.Banner(url))
			}
		}
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if o.Connections > 0 {
		go func() {
			for len(srv.Results()) < o.Connections && ctx.Err() == nil {
				time.Sleep(20 * time.Millisecond)
			}
			stop()
		}()
	}
	if err := srv.ListenAndServe(ctx, wsreplay.ListenOptions{Listen: o.Listen, URLFile: o.URLFile,
		Listening: func(url string) { fmt.Fprintf(o.log(), "listening on %s\n", url) }}); err != nil {
		return err
	}
	var findings error
	for _, r := range srv.Results() {
		switch {
		case r.Err == nil:
		case replayFinding(r.Err):
			if findings == nil {
				findings = fmt.Errorf("connection %d: %w", r.Conn, r.Err)
			}
		default:
			return &ConnError{r.Conn, fmt.Errorf("connection %d: %w", r.Conn, r.Err)}
		}
	}
	return findings
}

// replayFinding reports whether a replay's error is what it found of the client
// (a mismatch, unused frames) rather than a failure.
func replayFinding(err error) bool {
	return errors.Is(err, replay.ErrNoMatch) || errors.Is(err, replay.ErrUnused)
}
