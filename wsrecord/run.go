package wsrecord

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/codexrec/codexrec/wsproxy"
)

// Options are the settings of Run: what `codexrec record --listen` takes.
type Options struct {
	Listen   string // ws://HOST:PORT or unix://PATH where clients connect
	Upstream string // an existing app-server (ws:// or unix://); or:
	Command  []string
	Env      []string // the child's environment (nil: this process's)
	Dir      string   // the child's working directory
	Stderr   io.Writer
	// URLFile, when set, receives the bound URL (written whole, then renamed) once
	// clients may connect.
	URLFile string
	// StartTimeout bounds how long a child may take to listen; zero means 60s.
	StartTimeout time.Duration
}

// Running is a started record run: clients may connect to URL.
type Running struct {
	URL   string
	Child *wsproxy.Child // nil with an upstream URL
	rec   *Recorder
	ln    interface{ Close() error }
	done  chan error
	stop  context.CancelFunc
}

// Start starts the upstream (when opt.Command is set: Command plus --listen on a
// private unix socket), listens on opt.Listen, prints the bound URL on opt.Stderr
// ("codexrec record: listening on URL"), writes opt.URLFile, and serves rec until
// Stop, or until the child exits. rec.Upstream is set here.
func Start(opt Options, rec *Recorder) (*Running, error) {
	la, err := wsproxy.ParseURL(opt.Listen)
	if err != nil {
		return nil, err
	}
	stderr := opt.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	if rec.Session == "" {
		rec.Session = NewSessionID()
	}
	ctx, cancel := context.WithCancel(context.Background())
	run := &Running{rec: rec, done: make(chan error, 1), stop: cancel}
	switch {
	case opt.Upstream != "" && len(opt.Command) > 0:
		cancel()
		return nil, fmt.Errorf("an upstream URL and a command exclude each other")
	case opt.Upstream != "":
		if rec.Upstream, err = wsproxy.ParseURL(opt.Upstream); err != nil {
			cancel()
			return nil, err
		}
		// A server that is not there is said so at start, not as a 502 per client.
		if err := wsproxy.Probe(rec.Upstream, 10*time.Second); err != nil {
			cancel()
			return nil, err
		}
	case len(opt.Command) > 0:
		cmd := exec.Command(opt.Command[0], opt.Command[1:]...)
		cmd.Env, cmd.Dir = opt.Env, opt.Dir
		timeout := opt.StartTimeout
		if timeout == 0 {
			timeout = 60 * time.Second
		}
		if run.Child, err = wsproxy.StartChild(ctx, cmd, stderr, timeout); err != nil {
			cancel()
			return nil, err
		}
		rec.Upstream = run.Child.Addr
	default:
		cancel()
		return nil, ErrNoUpstream
	}
	ln, bound, err := wsproxy.Listen(la)
	if err != nil {
		run.stopChild()
		cancel()
		return nil, err
	}
	run.URL, run.ln = bound.String(), ln
	if opt.URLFile != "" {
		if err := wsproxy.WriteURLFile(opt.URLFile, run.URL); err != nil {
			ln.Close()
			run.stopChild()
			cancel()
			return nil, err
		}
	}
	fmt.Fprintf(stderr, "codexrec record: listening on %s\n", run.URL)
	if run.Child != nil {
		go func() {
			select {
			case <-run.Child.Done():
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	go func() { run.done <- rec.Serve(ctx, ln) }()
	return run, nil
}

// Wait waits until the run ends (Stop, or the child exited), stops the child and
// returns the relay's error, then the child's (a child killed by Stop's SIGTERM is
// no error).
func (r *Running) Wait() error {
	err := <-r.done
	if cerr := r.stopChild(); err == nil {
		err = cerr
	}
	return err
}

// Stop ends the run: the listener closes, every connection is dropped and its
// recording finished, the child is stopped. It returns what Wait returns.
func (r *Running) Stop() error {
	r.stop()
	return r.Wait()
}

// Done is closed when the child has exited (never, with an upstream URL).
func (r *Running) Done() <-chan struct{} {
	if r.Child == nil {
		return nil
	}
	return r.Child.Done()
}

func (r *Running) stopChild() error {
	if r.Child == nil {
		return nil
	}
	return r.Child.Stop()
}

// Run is Start, then Stop once ctx is done or the child exits: the whole of a
// record run as one call. Results on rec say how each connection ended.
func Run(ctx context.Context, opt Options, rec *Recorder) error {
	run, err := Start(opt, rec)
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
	case <-run.Done():
	}
	return run.Stop()
}
