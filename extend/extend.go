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
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/replay"
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
	// recorded into it as Segment.
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

	r := &run{o: o, sc: sc, q: newLineQueue(), live: make(chan os.Signal, 4)}
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
}

// relaySignals turns o.Signals into the replay's hangup, then, once the real
// server runs, forwards them to it.
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

// lineQueue keeps the client's lines as they are read, each with how many lines
// the replay had sent the client by then.
type lineQueue struct {
	mu    sync.Mutex
	cond  *sync.Cond
	lines [][]byte
	seen  []int
	done  bool
}

func newLineQueue() *lineQueue {
	q := &lineQueue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *lineQueue) read(in io.Reader, replayed *frameLog) {
	rd := wire.NewReader(in)
	for {
		line, err := rd.ReadLine()
		if len(line) > 0 {
			n := replayed.len()
			q.mu.Lock()
			q.lines = append(q.lines, line)
			q.seen = append(q.seen, n)
			q.cond.Broadcast()
			q.mu.Unlock()
		}
		if err != nil {
			q.mu.Lock()
			q.done = true
			q.cond.Broadcast()
			q.mu.Unlock()
			return
		}
	}
}

// get waits for line i (0-based) and returns it with how many replayed lines the
// client had been sent when it came; ok is false once the client's input ended
// before it.
func (q *lineQueue) get(i int) (line []byte, seen int, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.lines) <= i && !q.done {
		q.cond.Wait()
	}
	if len(q.lines) <= i {
		return nil, 0, false
	}
	return q.lines[i], q.seen[i], true
}

// forget drops line i once it was forwarded.
func (q *lineQueue) forget(i int) {
	q.mu.Lock()
	q.lines[i] = nil
	q.mu.Unlock()
}

// errorLine is a JSON-RPC error answering id, shaped like the app-server's.
func errorLine(id wire.ID, msg string) []byte {
	b := fmt.Appendf(nil, `{"error":{"code":-32603,"message":%q},"id":%s}`+"\n", msg, id)
	return b
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

// openRecording creates the extended recording: the original's entries, then a
// segment entry for the new lifetime. It returns the writer's session, the last
// seq and the time origin the new frames continue from.
func (r *run) openRecording(s *record.Session, segment int) (lastSeq int64, origin time.Time, err error) {
	f, err := os.Open(r.o.Path)
	if err != nil {
		return 0, time.Time{}, err
	}
	defer f.Close()
	rd, err := recorder.NewReader(f, r.o.Path)
	if err != nil {
		return 0, time.Time{}, err
	}
	h := rd.Header() // the header line itself: metas are copied as entries
	var entries []recorder.Entry
	var last time.Duration
	merged := h
	for e, err := range rd.Entries() {
		if err != nil {
			return 0, time.Time{}, fmt.Errorf("reading %s: %w", r.o.Path, err)
		}
		if e.Type == recorder.TypeTrailer {
			continue
		}
		if e.Type == recorder.TypeMeta && e.Header != nil {
			// The reader hands a meta entry's header merged into what came before:
			// the copy holds only what the entry said.
			d := headerDelta(merged, *e.Header)
			merged, e.Header = *e.Header, &d
		}
		entries = append(entries, e)
		last = max(last, e.Time)
		if e.Type == recorder.TypeFrame {
			lastSeq = max(lastSeq, e.Seq)
		}
	}
	// The new lifetime's clock continues the recording's: its first frame comes
	// just after the last one recorded.
	origin = time.Now().Add(-last - time.Millisecond)
	first := true
	now := func() time.Time {
		if first {
			first = false
			return origin
		}
		return time.Now()
	}
	prep := recorder.Header{Command: r.o.Command}
	if err := s.Prepare(&prep); err != nil {
		return 0, time.Time{}, err
	}
	w, err := recorder.Create(r.o.Path, h, recorder.Options{Force: true, Now: now})
	if err != nil {
		return 0, time.Time{}, err
	}
	s.Attach(w)
	for _, e := range entries {
		if e.Type == recorder.TypeFrame {
			err = w.WriteFrame(&wire.Frame{Seq: e.Seq, Time: e.Time, Dir: e.Dir, Msg: e.Msg, Line: e.Line, Undelivered: e.Undelivered})
		} else {
			err = w.WriteEntry(e)
		}
		if err != nil {
			w.Abort()
			return 0, time.Time{}, err
		}
	}
	// The segment's command is the one Prepare sanitized for the header.
	if err := w.WriteEntry(recorder.Entry{Type: recorder.TypeSegment, Time: w.Since(), Segment: segment,
		Extends: r.sc.Segment, Command: prep.Command}); err != nil {
		w.Abort()
		return 0, time.Time{}, err
	}
	return lastSeq, origin, nil
}

// headerDelta is the header holding the members of cur that differ from prev.
func headerDelta(prev, cur recorder.Header) recorder.Header {
	var p, c map[string]json.RawMessage
	pb, _ := json.Marshal(prev)
	cb, _ := json.Marshal(cur)
	json.Unmarshal(pb, &p)
	json.Unmarshal(cb, &c)
	for k, v := range c {
		if string(p[k]) == string(v) {
			delete(c, k)
		}
	}
	var d recorder.Header
	b, _ := json.Marshal(c)
	json.Unmarshal(b, &d)
	return d
}
