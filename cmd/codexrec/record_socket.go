package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/wsproxy"
	"github.com/codexrec/codexrec/wsrecord"
)

// socketFlags are record's WebSocket flags.
type socketFlags struct {
	listen, upstream, urlFile string
	memoryMiB                 int64
	// banner prints codex's own ws:// banner once clients may connect: set when
	// codexrec stands in for codex (the shim), never a flag.
	banner bool
}

func (s *socketFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.listen, "listen", "", "record WebSocket clients connecting to `URL` (ws://HOST:PORT or unix://PATH; port 0 picks one), one recording per connection in -o DIR")
	fs.StringVar(&s.upstream, "upstream", "", "with --listen: relay to the app-server already listening at `URL` (ws:// or unix://) instead of starting COMMAND")
	fs.StringVar(&s.urlFile, "url-file", "", "with --listen: write the bound URL to `FILE` once clients may connect")
	fs.Int64Var(&s.memoryMiB, "memory-budget", wsproxy.DefaultMemoryBudget>>20, "with --listen: `MiB` of messages held in memory across all connections (0: the default); past it, reads wait (back-pressure)")
}

// runRecordSocket is record --listen: a relay in front of a child started on a
// private unix socket (COMMAND) or of --upstream, each connection recorded into -o
// DIR, until SIGINT or SIGTERM (or the child's exit).
func runRecordSocket(c *recordConfig, args []string, std stdio) error {
	if c.out == "" {
		return usagef("-o DIR is required with --listen (one recording per connection)")
	}
	if c.socket.upstream == "" && len(args) == 0 {
		return usagef("--listen needs --upstream URL or a command: codexrec record --listen %s -o DIR -- codex app-server", c.socket.listen)
	}
	if c.socket.upstream != "" && len(args) > 0 {
		return usagef("--upstream and a command exclude each other")
	}
	if l := wsproxy.ListenFlag(args[min(1, len(args)):]); l != "" {
		return usagef("leave --listen %s out of the command: record --listen starts it on a private unix socket", l)
	}
	if _, err := wsproxy.ParseURL(c.socket.listen); err != nil {
		return usagef("--listen: %v", err)
	}
	if c.socket.memoryMiB < 0 {
		return usagef("--memory-budget: %d MiB: want 0 (the default) or more", c.socket.memoryMiB)
	}
	if c.socket.upstream != "" {
		if _, err := wsproxy.ParseURL(c.socket.upstream); err != nil {
			return usagef("--upstream: %v", err)
		}
	}
	if err := os.MkdirAll(c.out, 0o700); err != nil {
		return &exitError{exitUsage, err}
	}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	// The stages are built per connection; building one now reports a bad flag
	// before anything starts.
	if _, err := c.stages.session(cwd, nil); err != nil {
		return err
	}
	newSession := func() (*record.Session, error) {
		s, err := c.stages.session(cwd, nil)
		if err != nil {
			return nil, err
		}
		s.SkipStderr = c.noStderr
		return s, nil
	}
	command := args
	if c.socket.upstream != "" {
		command = []string{"--upstream", c.socket.upstream}
	}
	rec := &wsrecord.Recorder{Dir: c.out, NewSession: newSession, Log: prefixed(std.err, "codexrec record: "), QueueSize: c.queue,
		MemoryBudget: c.socket.memoryMiB << 20, Header: recorder.Header{Codexrec: Version, Command: command}}

	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	run, err := wsrecord.Start(wsrecord.Options{Listen: c.socket.listen, Upstream: c.socket.upstream,
		Command: args, Stderr: std.err, URLFile: c.socket.urlFile,
		Listening: func(url string) { fmt.Fprintf(std.err, "codexrec record: listening on %s\n", url) }}, rec)
	if err != nil {
		return &exitError{exitUsage, err}
	}
	if c.socket.banner && strings.HasPrefix(run.URL, "ws://") {
		fmt.Fprint(std.err, wsproxy.Banner(run.URL))
	}
	childExited := false
	select {
	case <-sigs:
	case <-run.Done():
		childExited = true
	}
	runErr := run.Stop()
	return socketExit(c, std, rec.Results(), runErr, childExited)
}

// socketExit decides record --listen's exit status: a recording the leak guard
// refused (3), one that failed or a relay error (2), the child's own failure (its
// code), findings under --fail-on (1).
func socketExit(c *recordConfig, std stdio, results []wsrecord.Result, runErr error, childExited bool) error {
	var leak, failed error
	var findings error
	for _, r := range results {
		if e := c.stages.report(std.err, fmt.Sprintf("record (connection %d)", r.Conn), r.Report); e != nil && findings == nil {
			findings = e
		}
		var le *sanitize.LeakError
		switch {
		case errors.As(r.Err, &le):
			if leak == nil {
				leak = le
			}
		case r.Err != nil && failed == nil:
			failed = r.Err
		}
	}
	fmt.Fprintf(std.err, "codexrec record: %d connection(s) recorded in %s\n", len(results), c.out)
	switch {
	case leak != nil:
		return &exitError{exitLeak, leakHint(leak)}
	case failed != nil:
		return &exitError{exitUsage, failed}
	case runErr != nil && childExited:
		var ee interface{ ExitCode() int }
		if errors.As(runErr, &ee) && ee.ExitCode() > 0 {
			return &exitError{ee.ExitCode(), fmt.Errorf("the app-server exited: %w", runErr)}
		}
		return &exitError{exitUsage, fmt.Errorf("the app-server exited: %w", runErr)}
	case runErr != nil:
		return &exitError{exitUsage, runErr}
	}
	return findings
}
