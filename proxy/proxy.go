// Package proxy runs a JSON-RPC stdio server as a child process and forwards every
// byte between it and a client unchanged, handing a copy of each line to a tap.
// It does not record, validate or sanitize anything itself: those are taps, and a
// slow tap slows forwarding down (bounded queue) rather than losing frames.
package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/codexrec/codexrec/wire"
)

// Proxy forwards a client's stdio to a child process. The zero value forwards without
// a tap; a Proxy may Run several children one after the other (a restart), continuing
// its frame numbering and clock.
type Proxy struct {
	// Tap receives every frame, with Seq, Time and pairing filled in, in the order the
	// frames were read, from one goroutine. Frames enter a queue before they are
	// forwarded, so a request is always tapped before its response; the tap is woken
	// after the write, so forwarding never waits for it while the queue has room. An
	// error from Tap stops further calls to it and is returned by Run (Result.TapErr);
	// forwarding goes on. Its Idle is called whenever the tap has caught up with every
	// frame read so far (and when the session ends): the moment to flush buffered
	// output, so that a reader following the recording sees a frame as soon as it was
	// forwarded, while lines read together cost one flush. (It was a timer once; an
	// armed runtime timer cost every round trip more than the flush does.) Nil taps
	// nothing; wire.TapFuncs makes a Tap of functions.
	Tap wire.Tap

	// ReuseLines lets the proxy reuse the memory of a frame's Line once Tap has
	// returned: a Tap that keeps a frame or its Line must then copy them. It saves
	// copying, allocating and collecting every byte that crosses.
	ReuseLines bool

	// QueueSize bounds the reads waiting for Tap (each read's complete lines travel
	// together, at most 256 KB of them; 64 MiB in all at most); when full, reading
	// pauses until the tap catches up. Zero means DefaultQueueSize.
	QueueSize int

	// MaxQueued bounds the bytes waiting for Tap (a single read longer than that
	// still passes); zero means 64 MiB. It bounds the tap's lag too: what is queued
	// when the server exits is what the tap has left to do then.
	MaxQueued int

	// Signals, when set, delivers signals to forward to the child (SIGINT, SIGTERM,
	// SIGHUP from signal.Notify). SIGQUIT is forwarded as SIGTERM: it asks the proxy
	// to end the session, not the server for a core dump.
	Signals <-chan os.Signal

	// DrainTimeout is how long to wait for the child's stdout and stderr to reach EOF
	// after it exits (a grandchild may hold them open), counted from the last read
	// or tapped frame: a tap still catching up is waited for. Zero means 2s.
	DrainTimeout time.Duration

	// EndClient, when set, is called once the server's stdout has ended and all of it
	// was written to the client, while the session may still be ending (the child
	// exiting, the tap catching up): a caller owning the client's stream ends it
	// there, so the client sees EOF at once (ReleaseStdout), not when the proxy exits.
	EndClient func()

	// Start is the session's time origin; zero means the first Run's start.
	Start time.Time

	// Seq is the seq of the last frame tapped; the next is Seq+1. A caller that
	// continues a recording (a lifetime appended to it) sets it to the recording's
	// last seq before Run.
	Seq int64
}

// DefaultQueueSize is the tap queue's length when Proxy.QueueSize is zero.
const DefaultQueueSize = 4096

// Result says how a Run ended.
type Result struct {
	ClientEOF bool      // the client closed its stdin before the child exited
	Signal    os.Signal // the first signal forwarded to the child, if any
	ExitCode  int       // the child's exit code, 128+N when killed by signal N
	KilledBy  string    // the signal that killed the child, e.g. "SIGTERM"
	ClientErr error     // writing to the client failed (it stopped reading); forwarding to it stopped
	TapErr    error     // the first error returned by Tap.Frame or Tap.Idle
	// LastDelivered is the seq of the last frame written to the client; Undelivered
	// counts the frames bound for the client that were read and tapped (marked
	// wire.Frame.Undelivered) but not written to it, after ClientErr.
	LastDelivered int64
	Undelivered   int64
}

// ErrClientStuck is ClientErr when a write to the client was still blocked when the
// session ended (the client neither read nor closed its end).
var ErrClientStuck = errors.New("the client stopped reading: a write to it never completed")

// ErrStart wraps the reason a child could not be started.
var ErrStart = errors.New("cannot start server")

// Run starts cmd, whose Stdin, Stdout and Stderr must be nil, and forwards between it
// and the client until the child has exited and its output is drained. On Linux the
// child gets SIGTERM if the proxy dies (unless cmd.SysProcAttr asks otherwise), so a
// server that ignores the end of its stdin is not orphaned. The child's
// stderr is copied to errOut unchanged (and tapped). Once ctx is done the child gets
// SIGTERM, as from Signals (Result.Signal says so unless a signal came first), and Run
// returns as the child exits and its output drains, as for any other end. Run returns
// an error only when the child cannot be started (or ctx is done before it starts);
// everything else is reported in Result.
func (p *Proxy) Run(ctx context.Context, cmd *exec.Cmd, client io.Reader, clientOut, errOut io.Writer) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrStart, err)
	}
	if cmd.Stdin != nil || cmd.Stdout != nil || cmd.Stderr != nil {
		return Result{}, fmt.Errorf("%w: proxy.Run needs a Cmd without Stdin, Stdout or Stderr", ErrStart)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return Result{}, fmt.Errorf("%w: %v", ErrStart, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return Result{}, fmt.Errorf("%w: %v", ErrStart, err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return Result{}, fmt.Errorf("%w: %v", ErrStart, err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	setDeathSignal(cmd)
	if p.Start.IsZero() {
		p.Start = time.Now()
	}
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return Result{}, fmt.Errorf("%w: %s: %w", ErrStart, cmd.Path, err)
	}
	closeAll(inR, outW, errW)
	// Blocking descriptors: each pump then waits in its own read(2) and wakes the moment
	// data arrives, instead of waiting for the runtime's poller to notice. That halves
	// the round trip through the proxy. (Fd switches a file to blocking mode.)
	inW.Fd()
	outR.Fd()
	errR.Fd()
	growPipe(inW)
	growPipe(outR)

	var res Result
	s := newSession(p, &res)

	clientEOF := make(chan struct{})
	go s.pumpClient(client, inW, clientEOF)

	var drained sync.WaitGroup
	drained.Add(2)
	var clientErr error
	go func() {
		defer drained.Done()
		clientErr = s.pumpOut(outR, wire.ServerToClient, clientOut)
		if p.EndClient != nil {
			p.EndClient()
		}
	}()
	go func() { defer drained.Done(); s.pumpOut(errR, wire.Stderr, errOut) }()

	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	ctxDone := ctx.Done() // nil for a context that never ends: never selected
loop:
	for {
		select {
		case sig := <-p.Signals:
			if res.Signal == nil {
				res.Signal = sig
			}
			if sig == syscall.SIGQUIT {
				sig = syscall.SIGTERM
			}
			cmd.Process.Signal(sig)
		case <-ctxDone:
			ctxDone = nil
			if res.Signal == nil {
				res.Signal = syscall.SIGTERM
			}
			cmd.Process.Signal(syscall.SIGTERM)
		case <-clientEOF:
			clientEOF = nil
			res.ClientEOF = true
		case <-exited:
			if clientEOF != nil {
				select {
				case <-clientEOF:
					res.ClientEOF = true
				default:
				}
			}
			break loop
		}
	}
	// A grandchild may hold stdout or stderr open after the child exits; then the
	// pumps stay blocked in read(2) and are abandoned (closing a blocking descriptor
	// does not interrupt a read).
	drainedAll := waitDrained(&drained, p.drainTimeout(), &s.progress)
	// The client pump may still be blocked reading the client; it drops what it reads
	// from now on, since nothing can reach the child any more.
	s.stop()
	outR.Close()
	errR.Close()
	inW.Close()
	if drainedAll {
		res.ClientErr = clientErr
	}
	if res.ClientErr == nil && res.Undelivered > 0 {
		res.ClientErr = ErrClientStuck
	}
	res.ExitCode, res.KilledBy = exitStatus(cmd.ProcessState)
	return res, nil
}

func (p *Proxy) queueSize() int {
	if p.QueueSize > 0 {
		return p.QueueSize
	}
	return DefaultQueueSize
}

func (p *Proxy) drainTimeout() time.Duration {
	if p.DrainTimeout > 0 {
		return p.DrainTimeout
	}
	return 2 * time.Second
}

func exitStatus(ps *os.ProcessState) (code int, killedBy string) {
	if ps == nil {
		return -1, ""
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), signalName(ws.Signal())
	}
	return ps.ExitCode(), ""
}

// signalName is the conventional name of sig, e.g. "SIGTERM".
func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	}
	return fmt.Sprintf("signal %d", int(sig))
}

// SignalName is the conventional name of a signal delivered to the proxy.
func SignalName(sig os.Signal) string {
	if s, ok := sig.(syscall.Signal); ok {
		return signalName(s)
	}
	return sig.String()
}

// waitDrained waits for wg until d passes with no progress (no read, no frame
// tapped) and reports whether wg was done.
func waitDrained(wg *sync.WaitGroup, d time.Duration, progress *atomic.Uint64) bool {
	ch := make(chan struct{})
	go func() { wg.Wait(); close(ch) }()
	t := time.NewTimer(d)
	defer t.Stop()
	for last := progress.Load(); ; {
		select {
		case <-ch:
			return true
		case <-t.C:
			now := progress.Load()
			if now == last {
				return false
			}
			last = now
			t.Reset(d)
		}
	}
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}
