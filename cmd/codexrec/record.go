package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/codexrec/codexrec/dropin"
	"github.com/codexrec/codexrec/proxy"
	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/replay"
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
	socket := c.socket.listen != "" && !wsproxy.IsStdio(c.socket.listen)
	if err := c.check(args, socket); err != nil {
		return err
	}
	o, err := c.options(std)
	if err != nil {
		return err
	}
	if socket {
		return runnerError(o.RecordSocket(context.Background(), c.out, args))
	}
	// Without --mode, record is what it always was: it never replaces FILE unless
	// --force. --mode record is the modes' record, which replaces what a former run
	// recorded under the same name (so does any recording named in a directory).
	if c.mode != "" || dropin.IsDirTarget(c.out) {
		mode, _ := shim.ParseMode(c.mode)
		if c.mode == "" {
			mode = shim.ModeRecord
		}
		s, err := modeSession(mode, args, c, defaultReplayConfig(), c.mode != "" || c.force, std)
		if err != nil {
			return err
		}
		s.SetTarget(c.out)
		return runnerError(s.Run(std.in))
	}
	return runnerError(o.Record(context.Background(), c.out, args, std.in))
}

// check refuses flags and arguments that do not go together.
func (c *recordConfig) check(args []string, socket bool) error {
	if socket {
		return c.checkSocket(args)
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
	if c.mode != "" {
		if _, err := shim.ParseMode(c.mode); err != nil {
			return usagef("--mode: %v", err)
		}
	}
	return nil
}

// options are the record runner's settings the flags describe.
func (c *recordConfig) options(std stdio) (*dropin.RecordOptions, error) {
	if _, err := parseFailOn(c.stages.failOn); err != nil {
		return nil, usagef("%v", err)
	}
	return &dropin.RecordOptions{Stages: c.stages.defaults("", nil), SkipStderr: c.noStderr, QueueSize: c.queue,
		Force: c.force, Version: Version, Stdout: std.out, Stderr: std.err,
		Listen: c.socket.listen, Upstream: c.socket.upstream, URLFile: c.socket.urlFile,
		MemoryBudget: c.socket.memoryMiB << 20, Banner: c.socket.banner, Log: prefixed(std.err, "codexrec record: "),
		Orphan: func(o string) {
			fmt.Fprintf(std.err, "codexrec record: %s is a recording a killed codexrec left unpublished; complete it with: codexrec recover %s\n", o, o)
		},
		Report: func(conn int, r record.Report) error {
			name := "record"
			if conn > 0 {
				name = fmt.Sprintf("record (connection %d)", conn)
			}
			return c.stages.report(std.err, name, r)
		}}, nil
}

// runnerError is the exit status of a record, replay or drop-in run's error, with
// the flags that would change it.
func runnerError(err error) error {
	var ee *exitError
	var ue usageError
	if err == nil || errors.As(err, &ee) || errors.As(err, &ue) {
		return err
	}
	var se *dropin.StagesError
	var xe *dropin.ExitError
	var ce *dropin.ConnError
	switch {
	case errors.As(err, &se):
		return settingError(se.Err)
	case errors.As(err, &xe) && (xe.Code > 0 || xe.Err == nil):
		if xe.Err == nil {
			return &exitError{code: xe.Code}
		}
		return &exitError{xe.Code, err}
	case errors.As(err, &ce):
		return &exitError{exitUsage, err}
	case errors.Is(err, replay.ErrNoMatch) || errors.Is(err, replay.ErrUnused):
		return &exitError{exitFindings, err}
	case errors.Is(err, dropin.ErrSocketFile):
		return &exitError{exitUsage, fmt.Errorf("%w: set CODEXREC_DIR instead", err)}
	case errors.Is(err, recorder.ErrExists) || errors.Is(err, recorder.ErrNotReplaceable):
		return createError(err)
	}
	return finishError(err)
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
