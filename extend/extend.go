// Package extend runs a recording's replay that turns into a recording when the
// client goes past it (go-vcr's new episodes): the replay serves what matches; at
// the first client message the recording does not hold, the real app-server is
// started, brought to the same state by the client's messages so far (its answers
// swallowed, the ids the client holds mapped to its own both ways), and the rest of
// the session is forwarded live and appended to the recording as a new segment
// that extends the one served. It parses no flags and never runs under CI.
package extend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/shim"
	"github.com/codexrec/codexrec/wire"
)

// Options for Run. Path and Command are required; the zero value of the rest is
// usable.
type Options struct {
	Path    string // the recording to serve and extend in place
	Segment int    // the lifetime to serve (0: the first; one extended is served as its extension)
	// Replay carries the replay's settings (matching, patience, Log...); its Script,
	// Handoff and Hangup are Run's. nil: the defaults.
	Replay *replay.Server
	// Command is the real app-server (codex app-server ...), run in Dir (""
	// this process's) with Env (nil: this process's).
	Command []string
	Dir     string
	Env     []string
	// Record is the pipeline the new lifetime goes through (validation, sanitizer,
	// leak guard), not yet created; nil records frames as they cross.
	Record *record.Session
	// In and Out are the client's; Stderr receives the real server's stderr (nil
	// discards it); Log the notes on the handoff (nil discards them).
	In          io.Reader
	Out         io.Writer
	Stderr, Log io.Writer
	// Signals, when set: during the replay, the first ends it as the client's EOF
	// would (Server.Hangup); once the real server runs, each is forwarded to it.
	Signals <-chan os.Signal
	// Getenv reads CI (nil: os.Getenv).
	Getenv func(string) string
	// CatchUp bounds each wait for the real server during the catch-up (0: one
	// minute): for its answer to a request, or a turn it has to finish.
	CatchUp time.Duration
}

// Result says what Run did.
type Result struct {
	// Extended is set when the client went past the recording and the rest was
	// recorded into it as Segment (Segment is set when it went past it).
	Extended bool
	Segment  int
	// CaughtUp counts the client messages sent to the real server to bring it to
	// the replay's state; Mapped the id pairs learned doing so.
	CaughtUp, Mapped int
	// Handoff is where the replay stopped, when Extended.
	Handoff *replay.Mismatch
	// Server is how the real server's session ended (Record's trailer and the
	// exit status), when Extended.
	Server record.Result
}

// ErrCatchUp wraps the reason the real server could not be brought to the
// replay's state; the recording is then left as it was.
var ErrCatchUp = errors.New("catching the real server up failed")

// Run serves the recording at o.Path to the client and extends it when the client
// goes past it. Without a handoff it is a replay and returns the replay's error
// (replay.ErrUnused...). Under CI (shim.IsCI) it refuses at once with an error
// wrapping shim.ErrCI.
func Run(ctx context.Context, o Options) (Result, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if shim.IsCI(getenv) {
		return Result{}, fmt.Errorf("extend %s: %w (CI is set): it would run the real server and change the recording", o.Path, shim.ErrCI)
	}
	if len(o.Command) == 0 {
		return Result{}, errors.New("extend: no command to run the real server with")
	}
	sc, err := replay.LoadFile(o.Path, o.Segment)
	if err != nil {
		return Result{}, err
	}
	srv := &replay.Server{}
	if o.Replay != nil {
		*srv = *o.Replay
	}
	srv.Script, srv.Handoff = sc, true
	hangup := make(chan struct{})
	srv.Hangup = hangup

	ctx, abort := context.WithCancel(ctx)
	defer abort()
	r := &run{o: o, sc: sc, q: newLineQueue(), live: make(chan os.Signal, 4), abort: abort}
	r.replayed = newFrameLog(o.Out)
	go r.q.read(o.In, r.replayed)
	stopSigs := r.relaySignals(hangup)
	defer stopSigs()

	pr, pw := io.Pipe()
	go func() {
		for i := 0; ; i++ {
			line, _, ok := r.q.get(i)
			if !ok {
				pw.Close()
				return
			}
			if _, err := pw.Write(line); err != nil {
				return
			}
		}
	}()
	err = srv.Serve(ctx, pr, r.replayed)
	pr.CloseWithError(errHandedOff)
	var h *replay.HandoffError
	if !errors.As(err, &h) {
		return Result{}, err
	}
	return r.extend(ctx, h)
}

var errHandedOff = errors.New("handed off")

// run is one Run's state.
type run struct {
	o        Options
	sc       *replay.Script
	q        *lineQueue
	replayed *frameLog // what the replay sent the client

	mu     sync.Mutex
	phase  int // 0 replay, 1 catch-up, 2 live
	live   chan os.Signal
	hungUp bool
	abort  func() // a second signal during the replay
}

// relaySignals turns o.Signals into the replay's hangup (a second one aborts),
// then, once the real server runs, forwards them to it.
func (r *run) relaySignals(hangup chan struct{}) func() {
	done := make(chan struct{})
	if r.o.Signals == nil {
		return func() { close(done) }
	}
	go func() {
		for {
			select {
			case sig := <-r.o.Signals:
				r.mu.Lock()
				switch {
				case r.phase == 0 && !r.hungUp:
					r.hungUp = true
					close(hangup)
				case r.phase == 0:
					r.abort()
				case r.phase > 0:
					select {
					case r.live <- sig:
					default:
					}
				}
				r.mu.Unlock()
			case <-done:
				return
			}
		}
	}()
	return func() { close(done) }
}

// errorLine is a JSON-RPC error answering id, shaped like the app-server's.
func errorLine(id wire.ID, msg string) []byte {
	m, _ := json.Marshal(sanitize.MaskText(msg))
	return fmt.Appendf(nil, `{"error":{"code":-32603,"message":%s},"id":%s}`+"\n", m, id)
}

// command builds the real server's process.
func (r *run) command() *exec.Cmd {
	cmd := exec.Command(r.o.Command[0], r.o.Command[1:]...)
	cmd.Dir, cmd.Env = r.o.Dir, r.o.Env
	return cmd
}

// terminate asks the real server to end (ctx done).
func (r *run) terminate() {
	select {
	case r.live <- syscall.SIGTERM:
	default:
	}
}
