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

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/wsproxy"
	"github.com/codexrec/codexrec/wsrecord"
)

// ConnError is a socket connection whose recording failed (for a reason other than
// the leak guard's refusal).
type ConnError struct {
	Conn int
	Err  error
}

func (e *ConnError) Error() string { return e.Err.Error() }
func (e *ConnError) Unwrap() error { return e.Err }

// RecordSocket relays WebSocket clients connecting to Listen to an app-server,
// command started on a private unix socket or Upstream, and records each
// connection into dir, until SIGINT, SIGTERM or SIGHUP, ctx being done, or the
// child's exit. Its error is, first found: a connection's recording the leak guard
// refused (*sanitize.LeakError), one that failed (*ConnError), the relay's or the
// child's failure (*ExitError when the child exited), then the Report hook's.
func (o *RecordOptions) RecordSocket(ctx context.Context, dir string, command []string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	// The stages are built per connection; building one now reports a bad setting
	// before anything starts.
	if _, err := o.session(); err != nil {
		return err
	}
	header := command
	if o.Upstream != "" {
		header = []string{"--upstream", o.Upstream}
	}
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	stderr := orStd(o.Stderr, os.Stderr)
	rec := &wsrecord.Recorder{Dir: dir, NewSession: o.session, Log: log, QueueSize: o.QueueSize,
		MemoryBudget: o.MemoryBudget, Header: recorder.Header{Codexrec: o.Version, Command: header}}

	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	run, err := wsrecord.Start(wsrecord.Options{Listen: o.Listen, Upstream: o.Upstream,
		Command: command, Stderr: stderr, URLFile: o.URLFile,
		Listening: func(url string) { fmt.Fprintf(log, "listening on %s\n", url) }}, rec)
	if err != nil {
		return err
	}
	if o.Banner && strings.HasPrefix(run.URL, "ws://") {
		fmt.Fprint(stderr, wsproxy.Banner(run.URL))
	}
	childExited := false
	select {
	case <-ctx.Done():
	case <-run.Done():
		childExited = true
	}
	runErr := run.Stop()
	return o.socketResult(log, dir, rec.Results(), runErr, childExited)
}

// socketResult is RecordSocket's error from how the connections and the run ended.
func (o *RecordOptions) socketResult(log io.Writer, dir string, results []wsrecord.Result, runErr error, childExited bool) error {
	var leak, failed, findings error
	for _, r := range results {
		if o.Report != nil {
			if e := o.Report(r.Conn, r.Report); e != nil && findings == nil {
				findings = e
			}
		}
		var le *sanitize.LeakError
		switch {
		case errors.As(r.Err, &le):
			if leak == nil {
				leak = le
			}
		case r.Err != nil && failed == nil:
			failed = &ConnError{r.Conn, r.Err}
		}
	}
	fmt.Fprintf(log, "%d connection(s) recorded in %s\n", len(results), dir)
	switch {
	case leak != nil:
		return leak
	case failed != nil:
		return failed
	case runErr != nil && childExited:
		var ee interface{ ExitCode() int }
		code := 0
		if errors.As(runErr, &ee) {
			code = ee.ExitCode()
		}
		return &ExitError{Code: code, Err: runErr}
	case runErr != nil:
		return runErr
	}
	return findings
}
