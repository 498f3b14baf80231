package dropin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/codexrec/codexrec/proxy"
	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/recorder"
)

// RecordOptions are how a session is recorded: the record pipeline's stages, the
// proxy, and for RecordSocket the relay. The zero value records through the default
// pipeline (record.Defaults{} with the working directory mapped) into a recording
// that must not exist yet, on os.Stdout and os.Stderr, with a proxy of the default
// queue, saying nothing.
type RecordOptions struct {
	// Stages are the pipeline, built afresh for each recording. Stages.Sanitize.Cwd
	// "" maps the working directory.
	Stages     record.Defaults
	SkipStderr bool   // pass the server's stderr through but do not record it
	QueueSize  int    // the proxy's (0: proxy.DefaultQueueSize)
	Force      bool   // replace an existing recording
	Version    string // the recorder's version, written into the header

	// Stdout is the client's side of the stdio session (nil: os.Stdout; when it is
	// os.Stdout it is released as the server's output ends, so the client sees EOF
	// before the recording is finished). Stderr receives the server's stderr (nil:
	// os.Stderr).
	Stdout, Stderr io.Writer

	// RecordSocket's relay: Listen is the URL clients connect to (ws://HOST:PORT or
	// unix://PATH); Upstream an app-server already listening, in place of a
	// command; URLFile receives the bound URL; MemoryBudget bounds the bytes held in
	// memory (0: wsproxy's default); Banner prints codex's own listening banner on
	// Stderr (a stand-in for codex).
	Listen, Upstream, URLFile string
	MemoryBudget              int64
	Banner                    bool
	// Log receives RecordSocket's notes (the bound URL, how many connections were
	// recorded), one line each; nil discards them.
	Log io.Writer
	// Getenv reads CI for Extend (nil: os.Getenv).
	Getenv func(string) string

	// Orphan, when set, is told of each recording a killed recorder left
	// unpublished beside the one about to be recorded (recorder.Orphans).
	Orphan func(path string)
	// Report, when set, is given each recording's report once it is finished
	// (conn 0 for a stdio session, the connection's number on a socket); its error,
	// when the session otherwise succeeded, is the session's.
	Report func(conn int, r record.Report) error
}

// StagesError is a record pipeline whose settings (RecordOptions.Stages) cannot be
// used: a *sanitize.SettingError or a bad allow expression.
type StagesError struct{ Err error }

func (e *StagesError) Error() string { return e.Err.Error() }
func (e *StagesError) Unwrap() error { return e.Err }

// ExitError is the recorded app-server's failure: Code is its exit status (0 or
// less when it has none, such as a socket child killed by a signal); Err is nil for
// a stdio session, whose server's exit is all there is to say.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("the app-server exited with status %d", e.Code)
	}
	return "the app-server exited: " + e.Err.Error()
}
func (e *ExitError) Unwrap() error { return e.Err }

// session is a new pipeline of the stages.
func (o *RecordOptions) session() (*record.Session, error) {
	d := o.Stages
	if d.Sanitize.Cwd == "" {
		cwd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		d.Sanitize.Cwd = cwd
	}
	s, err := d.Session()
	if err != nil {
		return nil, &StagesError{err}
	}
	s.SkipStderr = o.SkipStderr
	return s, nil
}

func orStd(w io.Writer, std *os.File) io.Writer {
	if w == nil {
		return std
	}
	return w
}

// Record runs command as a byte-faithful proxy between the client (in, Stdout)
// and records the session into path. It has the process's signals for its
// duration: SIGINT, SIGTERM, SIGHUP and SIGQUIT end the session (the child gets
// them, SIGQUIT as SIGTERM), as ctx being done does; a write to a client that went
// away is an error, not SIGPIPE's death. A command that cannot start leaves no
// recording (the error wraps proxy.ErrStart); a server that exits non-zero is an
// *ExitError; the leak guard's refusal or redaction is a *sanitize.LeakError or
// *sanitize.RedactedError; a recording that exists is recorder.ErrExists.
func (o *RecordOptions) Record(ctx context.Context, path string, command []string, in io.Reader) error {
	if len(command) == 0 {
		return errors.New("no command to record")
	}
	for _, p := range recorder.Orphans(path) {
		if o.Orphan != nil {
			o.Orphan(p)
		}
	}
	s, err := o.session()
	if err != nil {
		return err
	}
	s.DiscardFailedStart = true
	if err := s.Create(path, recorder.Header{Codexrec: o.Version, Command: command}, recorder.Options{Force: o.Force}); err != nil {
		return err
	}

	sigs := make(chan os.Signal, 4)
	// SIGQUIT ends the session like SIGTERM (the child gets SIGTERM) instead of
	// dumping goroutines and leaving the recording unpublished.
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	// Asking for SIGPIPE turns a write to a client that went away into an error
	// instead of killing the proxy before the recording is closed.
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	defer signal.Stop(pipes)
	out := orStd(o.Stdout, os.Stdout)
	p := &proxy.Proxy{QueueSize: o.QueueSize, Signals: sigs}
	if out == os.Stdout {
		// The client sees EOF when the server's stdout ends, not after the recording
		// is finished.
		p.EndClient = func() { proxy.ReleaseStdout() }
	}
	res, err := s.Run(ctx, p, exec.Command(command[0], command[1:]...), in, out, orStd(o.Stderr, os.Stderr))
	var reportErr error
	if o.Report != nil {
		reportErr = o.Report(0, s.Report())
	}
	switch {
	case errors.Is(err, proxy.ErrStart):
		return fmt.Errorf("%w (no recording kept)", err)
	case err != nil:
		return err
	}
	if res.ExitCode != 0 {
		return &ExitError{Code: res.ExitCode}
	}
	return reportErr
}
