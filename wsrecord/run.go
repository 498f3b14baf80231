package wsrecord

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"sync"
	"time"

	"github.com/codexrec/codexrec/wsproxy"
)

// Options are the settings of Run: what `codexrec record --listen` takes. Listen
// and one of Upstream or Command are required; the zero value of the rest runs the
// child with this process's environment and directory, discards its stderr,
// announces nothing and waits 60s for it to listen.
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
	// Listening, when set, is called with the bound URL before URLFile is written,
	// so that whoever waits for the file finds the announcement already made.
	Listening func(url string)
	// StartTimeout bounds how long a child may take to listen; zero means 60s.
	StartTimeout time.Duration
}

// Running is a started record run: clients may connect to URL.
type Running struct {
	URL    string
	Child  *wsproxy.Child // nil with an upstream URL
	rec    *Recorder
	ln     interface{ Close() error }
	stderr *socketRewriter
	done   chan error
	stop   context.CancelFunc
}

// Start starts the upstream (when opt.Command is set: Command plus --listen on a
// private unix socket), listens on opt.Listen (the bound URL is Running.URL),
// writes opt.URLFile, and serves rec until
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
	switch {
	case opt.Upstream != "" && len(opt.Command) > 0:
		return nil, fmt.Errorf("an upstream URL and a command exclude each other")
	case opt.Upstream == "" && len(opt.Command) == 0:
		return nil, ErrNoUpstream
	case opt.Upstream != "":
		if rec.Upstream, err = wsproxy.ParseURL(opt.Upstream); err != nil {
			return nil, err
		}
		// A server that is not there is said so at start, not as a 502 per client.
		if err := wsproxy.Probe(rec.Upstream, 10*time.Second); err != nil {
			return nil, err
		}
	}
	if rec.Session == "" {
		rec.Session = NewSessionID()
	}
	// Listening first: the child's own "listening on" line can then name the URL
	// clients must use rather than its private socket.
	ln, bound, err := wsproxy.Listen(la)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	run := &Running{rec: rec, done: make(chan error, 1), stop: cancel, URL: bound.String(), ln: ln}
	fail := func(err error) (*Running, error) {
		ln.Close()
		run.stopChild()
		cancel()
		return nil, err
	}
	if len(opt.Command) > 0 {
		cmd := exec.Command(opt.Command[0], opt.Command[1:]...)
		cmd.Env, cmd.Dir = opt.Env, opt.Dir
		timeout := opt.StartTimeout
		if timeout == 0 {
			timeout = 60 * time.Second
		}
		run.stderr = &socketRewriter{w: stderr, url: run.URL}
		if run.Child, err = wsproxy.StartChild(ctx, cmd, run.stderr, timeout); err != nil {
			return fail(err)
		}
		rec.Upstream = run.Child.Addr
	}
	if opt.Listening != nil {
		opt.Listening(run.URL)
	}
	if opt.URLFile != "" {
		if err := wsproxy.WriteURLFile(opt.URLFile, run.URL); err != nil {
			return fail(err)
		}
	}
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

// privateSocket matches the child's socket URL as the child prints it.
var privateSocket = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`unix://[^\s"']*codexrec-app-server-[0-9]+/app-server\.sock`)
})

// socketRewriter passes the child's stderr on line by line, with its private
// socket's URL replaced by the URL clients connect to: a client that reads codex's
// "listening on" line finds the relay, not a way around it.
type socketRewriter struct {
	mu      sync.Mutex
	w       io.Writer
	url     string
	pending []byte
}

func (r *socketRewriter) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending = append(r.pending, p...)
	i := bytes.LastIndexByte(r.pending, '\n')
	if i < 0 {
		return len(p), nil
	}
	out := privateSocket().ReplaceAllLiteral(r.pending[:i+1], []byte(r.url))
	r.pending = append(r.pending[:0], r.pending[i+1:]...)
	if _, err := r.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// flush writes what is left of a last line without a newline.
func (r *socketRewriter) flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.pending) > 0 {
		r.w.Write(privateSocket().ReplaceAllLiteral(r.pending, []byte(r.url)))
		r.pending = nil
	}
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

// Stop ends the run: the listener closes, every connection still open after the
// relay's shutdown grace (wsproxy.DefaultShutdownGrace) is dropped and its
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
	err := r.Child.Stop()
	r.stderr.flush()
	return err
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
