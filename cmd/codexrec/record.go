package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/codexrec/codexrec/proxy"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
)

func init() {
	register(&command{
		name:    "record",
		args:    "-o FILE [flags] -- COMMAND [ARGS...]",
		summary: "run COMMAND (codex app-server) as a byte-faithful proxy and record both directions",
		flags:   recordFlags,
		run:     runRecord,
	})
}

type recordConfig struct {
	out      string
	force    bool
	noStderr bool
	queue    int
	stages   stageFlags
}

func recordFlags(fs *flag.FlagSet) any {
	c := &recordConfig{}
	fs.StringVar(&c.out, "o", "", "write the recording to `FILE` (required)")
	fs.BoolVar(&c.force, "force", false, "overwrite FILE if it exists")
	fs.BoolVar(&c.noStderr, "no-stderr", false, "pass the server's stderr through but do not record it")
	fs.IntVar(&c.queue, "queue", proxy.DefaultQueueSize, "reads (each one or more lines) that may wait for the recorder before forwarding slows down")
	c.stages.register(fs, true)
	return c
}

func runRecord(cfg any, args []string, std stdio) error {
	c := cfg.(*recordConfig)
	if c.out == "" {
		return usagef("-o FILE is required")
	}
	if len(args) == 0 {
		return usagef("no command to run: codexrec record -o FILE -- codex app-server")
	}
	for _, o := range recorder.Orphans(c.out) {
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
	s.SkipStderr = c.noStderr
	if err := s.Create(c.out, recorder.Header{Codexrec: Version, Command: args}, recorder.Options{Force: c.force}); err != nil {
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
	res, err := s.Run(p, exec.Command(args[0], args[1:]...), std.in, std.out, std.err)
	reportErr := c.stages.report(std.err, "record", s.Report())
	switch {
	case errors.Is(err, proxy.ErrStart):
		return &exitError{exitUsage, fmt.Errorf("%w (recording %s says so)", err, c.out)}
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
	return &exitError{exitUsage, err}
}

// finishError is the exit status of a session whose recording could not be
// finished: the leak guard's refusal or redaction is exitLeak, anything else exitUsage.
func finishError(err error) error {
	var le *sanitize.LeakError
	if errors.As(err, &le) {
		return &exitError{exitLeak, le}
	}
	var re *sanitize.RedactedError
	if errors.As(err, &re) { // published, but the guard had to redact
		return &exitError{exitLeak, re}
	}
	return &exitError{exitUsage, err}
}
