package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/codexrec/codexrec/dropin"
	"github.com/codexrec/codexrec/proxy"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/shim"
	"github.com/codexrec/codexrec/wsproxy"
)

func init() {
	register(&command{
		name:    "record",
		args:    "-o FILE [flags] -- COMMAND [ARGS...]  |  --listen URL -o DIR [--upstream URL | -- COMMAND...]",
		summary: "run COMMAND (codex app-server) as a byte-faithful proxy and record both directions (stdio, or WebSocket with --listen)",
		flags:   recordFlags,
		run:     runRecord,
	})
}

type recordConfig struct {
	out      string
	mode     string
	force    bool
	noStderr bool
	queue    int
	stages   stageFlags
	socket   socketFlags
}

func recordFlags(fs *flag.FlagSet) any {
	c := &recordConfig{}
	fs.StringVar(&c.out, "o", "", "write the recording to `FILE` (required); a directory (DIR/) names it by the naming rule (docs/dropin.md)")
	fs.StringVar(&c.mode, "mode", "", "`MODE`: record (replacing -o's recording), replay (serve -o's recording instead), auto (replay it if it exists, else record; never records when CI is set) or passthrough (run COMMAND, record nothing)")
	fs.BoolVar(&c.force, "force", false, "overwrite FILE if it exists")
	fs.BoolVar(&c.noStderr, "no-stderr", false, "pass the server's stderr through but do not record it")
	fs.IntVar(&c.queue, "queue", proxy.DefaultQueueSize, "reads (each one or more lines) that may wait for the recorder before forwarding slows down")
	c.stages.register(fs, true)
	c.socket.register(fs)
	applyConfig("record", fs)
	return c
}

func runRecord(cfg any, args []string, std stdio) error {
	c := cfg.(*recordConfig)
	if c.socket.listen != "" && !wsproxy.IsStdio(c.socket.listen) {
		return runRecordSocket(c, args, std)
	}
	if c.socket.upstream != "" || c.socket.urlFile != "" {
		return usagef("--upstream and --url-file need --listen ws://HOST:PORT or unix://PATH")
	}
	if c.out == "" {
		return usagef("-o FILE is required")
	}
	if l := wsproxy.ListenFlag(args[min(1, len(args)):]); !wsproxy.IsStdio(l) {
		return usagef("the command listens on %s, where this proxy sees nothing: record a socket with codexrec record --listen URL -o DIR -- %s", l, strings.Join(wsproxy.WithoutListen(args), " "))
	}
	if len(args) == 0 {
		return usagef("no command to run: codexrec record -o FILE -- codex app-server")
	}
	mode := shim.ModeRecord
	if c.mode != "" {
		var err error
		if mode, err = shim.ParseMode(c.mode); err != nil {
			return usagef("--mode: %v", err)
		}
	}
	// Without --mode, record is what it always was: it never replaces FILE unless
	// --force. --mode record is the modes' record, which replaces what a former run
	// recorded under the same name (so does any recording named in a directory).
	if c.mode != "" || dropin.IsDirTarget(c.out) {
		s := modeSession(mode, args, c, defaultReplayConfig(), c.mode != "" || c.force, std)
		s.SetTarget(c.out)
		return modeError(s.Run(std.in))
	}
	return recordSession(c, c.out, c.force, args, std.in, std)
}

// recordSession records the session of the command args with the client on in and
// std.out into out.
func recordSession(c *recordConfig, out string, force bool, args []string, in io.Reader, std stdio) error {
	for _, o := range recorder.Orphans(out) {
		fmt.Fprintf(std.err, "codexrec record: %s is a recording a killed codexrec left unpublished; complete it with: codexrec recover %s\n", o, o)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	s, err := c.stages.session(cwd, nil)
	if err != nil {
		return err
	}
	s.SkipStderr, s.DiscardFailedStart = c.noStderr, true
	if err := s.Create(out, recorder.Header{Codexrec: Version, Command: args}, recorder.Options{Force: force}); err != nil {
		return createError(err)
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

	p := &proxy.Proxy{QueueSize: c.queue, Signals: sigs}
	if std.out == os.Stdout {
		// The client sees EOF when the server's stdout ends, not after the recording
		// is finished.
		p.EndClient = func() { proxy.ReleaseStdout() }
	}
	res, err := s.Run(p, exec.Command(args[0], args[1:]...), in, std.out, std.err)
	reportErr := c.stages.report(std.err, "record", s.Report())
	switch {
	case errors.Is(err, proxy.ErrStart):
		return &exitError{exitUsage, fmt.Errorf("%w (no recording kept)", err)}
	case err != nil:
		return finishError(err)
	}
	if res.ExitCode != 0 {
		return &exitError{code: res.ExitCode}
	}
	return reportErr
}

// createError is the exit status of a recording that could not be created: a
// stage's bad setting or an I/O error, both usage-or-I/O.
func createError(err error) error {
	if errors.Is(err, recorder.ErrExists) {
		return &exitError{exitUsage, fmt.Errorf("%w (--force replaces it)", err)}
	}
	if errors.Is(err, recorder.ErrNotReplaceable) {
		return &exitError{exitUsage, fmt.Errorf("%w (not even with --force)", err)}
	}
	return &exitError{exitUsage, err}
}

// finishError is the exit status of a session whose recording could not be
// finished: the leak guard's refusal or redaction is exitLeak, anything else exitUsage.
func finishError(err error) error {
	var le *sanitize.LeakError
	if errors.As(err, &le) {
		return &exitError{exitLeak, leakHint(le)}
	}
	var re *sanitize.RedactedError
	if errors.As(err, &re) { // published, but the guard had to redact
		return &exitError{exitLeak, re}
	}
	return &exitError{exitUsage, err}
}

// leakHint is the guard's refusal with the flags that accept a false positive.
func leakHint(err error) error {
	return fmt.Errorf("%w\nif a finding is a known false positive, allow it with --allow REGEX (matched against the flagged value) or --allow-file FILE (one REGEX per line)", err)
}
