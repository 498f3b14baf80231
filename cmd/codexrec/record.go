package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/codexrec/codexrec/dropin"
	"github.com/codexrec/codexrec/proxy"
	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/shim"
	"github.com/codexrec/codexrec/stale"
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
	out, mode string
	memoryMiB int64
	o         dropin.RecordOptions // the flags' settings of the runner
	stages    stageFlags
}

func recordFlags(fs *flag.FlagSet) any {
	c := &recordConfig{}
	fs.StringVar(&c.out, "o", "", "write the recording to `FILE` (required); a directory (DIR/) names it by the naming rule (docs/dropin.md)")
	fs.StringVar(&c.mode, "mode", "", "`MODE`: record (replacing -o's recording), replay (serve -o's recording instead), auto (replay it if it exists, else record; never records when CI is set) or passthrough (run COMMAND, record nothing)")
	fs.BoolVar(&c.o.Force, "force", false, "overwrite FILE if it exists")
	fs.BoolVar(&c.o.SkipStderr, "no-stderr", false, "pass the server's stderr through but do not record it")
	fs.IntVar(&c.o.QueueSize, "queue", proxy.DefaultQueueSize, "reads (each one or more lines) that may wait for the recorder before forwarding slows down")
	c.stages.register(fs, true)
	fs.StringVar(&c.o.Listen, "listen", "", "record WebSocket clients connecting to `URL` (ws://HOST:PORT or unix://PATH; port 0 picks one), one recording per connection in -o DIR")
	fs.StringVar(&c.o.Upstream, "upstream", "", "with --listen: relay to the app-server already listening at `URL` (ws:// or unix://) instead of starting COMMAND")
	fs.StringVar(&c.o.URLFile, "url-file", "", "with --listen: write the bound URL to `FILE` once clients may connect")
	fs.Int64Var(&c.memoryMiB, "memory-budget", wsproxy.DefaultMemoryBudget>>20, "with --listen: `MiB` of messages held in memory across all connections (0: the default); past it, reads wait (back-pressure)")
	applyConfig("record", fs)
	return c
}

func runRecord(cfg any, args []string, std stdio) error {
	c := cfg.(*recordConfig)
	socket := c.o.Listen != "" && !wsproxy.IsStdio(c.o.Listen)
	if err := c.check(args, socket); err != nil {
		return err
	}
	o, err := c.options(std)
	switch {
	case err != nil:
		return err
	case socket:
		return runnerError(o.RecordSocket(context.Background(), c.out, args))
	case c.mode == "" && !dropin.IsDirTarget(c.out):
		// Without --mode, record never replaces FILE unless --force; --mode record
		// (and a recording named in a directory) replaces a former run's.
		return runnerError(o.Record(context.Background(), c.out, args, std.in))
	}
	mode, _ := shim.ParseMode(firstSet(c.mode, "record"))
	m := &dropin.SessionOptions{Mode: mode, Command: args, Replace: c.mode != ""}
	if err := modes(m, c, replayFlags(flag.NewFlagSet("replay", flag.ContinueOnError)).(*replayConfig), std, nil); err != nil {
		return err
	}
	return runnerError(m.Run(context.Background(), c.out, std.in))
}

// check refuses flags and arguments that do not go together.
func (c *recordConfig) check(args []string, socket bool) error {
	l := wsproxy.ListenFlag(args[min(1, len(args)):])
	_, listenErr := wsproxy.ParseURL(c.o.Listen)
	_, upErr := wsproxy.ParseURL(c.o.Upstream)
	_, modeErr := shim.ParseMode(c.mode)
	if c.out == "-" { // stdout is the wire the client reads
		return usagef("-o -: stdout carries the server's messages to the client; name a FILE (or DIR/) for the recording")
	}
	if socket {
		return refuse(refusal{c.out == "", "-o DIR is required with --listen (one recording per connection)"},
			refusal{c.o.Upstream == "" && len(args) == 0, "--listen needs --upstream URL or a command: codexrec record --listen " + c.o.Listen + " -o DIR -- codex app-server"},
			refusal{c.o.Upstream != "" && len(args) > 0, "--upstream and a command exclude each other"},
			refusal{l != "", "leave --listen " + l + " out of the command: record --listen starts it on a private unix socket"},
			refusal{listenErr != nil, fmt.Sprintf("--listen: %v", listenErr)},
			refusal{c.memoryMiB < 0, fmt.Sprintf("--memory-budget: %d MiB: want 0 (the default) or more", c.memoryMiB)},
			refusal{c.o.Upstream != "" && upErr != nil, fmt.Sprintf("--upstream: %v", upErr)})
	}
	return refuse(refusal{c.o.Upstream != "" || c.o.URLFile != "", "--upstream and --url-file need --listen ws://HOST:PORT or unix://PATH"},
		refusal{c.out == "", "-o FILE is required"},
		refusal{!wsproxy.IsStdio(l), "the command listens on " + l + ", where this proxy sees nothing: record a socket with codexrec record --listen URL -o DIR -- " + strings.Join(wsproxy.WithoutListen(args), " ")},
		refusal{len(args) == 0, "no command to run: codexrec record -o FILE -- codex app-server"},
		refusal{modeErr != nil, fmt.Sprintf("--mode: %v", modeErr)})
}

// refusal is a usage error msg, when bad.
type refusal struct {
	bad bool
	msg string
}

// refuse is the first of the refusals that is bad, else nil.
func refuse(rs ...refusal) error {
	for _, r := range rs {
		if r.bad {
			return usagef("%s", r.msg)
		}
	}
	return nil
}

// options are the record runner's settings the flags describe.
func (c *recordConfig) options(std stdio) (*dropin.RecordOptions, error) {
	if _, err := parseFailOn(c.stages.failOn); err != nil {
		return nil, usagef("%v", err)
	}
	o := c.o
	o.Stages, o.Version, o.Stdout, o.Stderr, o.MemoryBudget = c.stages.defaults("", nil), Version, std.out, std.err, c.memoryMiB<<20
	o.Log = prefixed(std.err, "codexrec record: ")
	o.Orphan = func(p string) {
		fmt.Fprintf(std.err, "codexrec record: %s is a recording a killed codexrec left unpublished; complete it with: codexrec recover %s\n", p, p)
	}
	o.Report = func(conn int, r record.Report) error {
		if conn > 0 {
			return c.stages.report(std.err, fmt.Sprintf("record (connection %d)", conn), r)
		}
		return c.stages.report(std.err, "record", r)
	}
	return &o, nil
}

// modes fills in m, a drop-in session's settings, from record's flags rec and
// replay's rep: the notes and the replay's diagnostics go to stderr and, when set,
// to report too.
func modes(m *dropin.SessionOptions, rec *recordConfig, rep *replayConfig, std stdio, report io.Writer) error {
	note := std.err
	if report != nil {
		note = io.MultiWriter(std.err, report)
	}
	if m.Command != nil {
		rep.stale.codex = m.Command[0] // --min-codex installed: the codex that would record
	}
	var err error
	if m.Record, err = rec.options(std); err != nil {
		return err
	}
	rstd := std
	rstd.err = note
	if m.Replay, err = rep.options(rstd); err != nil {
		return err
	}
	m.Log, m.Stale, m.StalePolicy = prefixed(note, "codexrec: "), stale.Action(rep.stale.action), rep.stale.policy
	m.Extended = func(r record.Report) error { return rec.stages.report(note, "replay", r) }
	return nil
}

// runnerError is the exit status of a record, replay or drop-in run's error, with
// the flags that would change it.
func runnerError(err error) error {
	var se *dropin.StagesError
	var xe *dropin.ExitError
	var ce *dropin.ConnError
	switch {
	case err == nil || errors.As(err, new(*exitError)) || errors.As(err, new(usageError)):
		return err
	case errors.As(err, &se):
		return settingError(se.Err)
	case errors.As(err, &xe) && xe.Err == nil:
		return &exitError{code: xe.Code}
	case errors.As(err, &xe) && xe.Code > 0:
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
	switch {
	case errors.Is(err, recorder.ErrExists):
		err = fmt.Errorf("%w (--force replaces it)", err)
	case errors.Is(err, recorder.ErrNotReplaceable):
		err = fmt.Errorf("%w (not even with --force)", err)
	}
	return &exitError{exitUsage, err}
}

// finishError is the exit status of a session whose recording could not be
// finished: the leak guard's refusal or redaction is exitLeak, anything else exitUsage.
func finishError(err error) error {
	var le *sanitize.LeakError
	var re *sanitize.RedactedError
	switch {
	case errors.As(err, &le):
		return &exitError{exitLeak, leakHint(le)}
	case errors.As(err, &re): // published, but the guard had to redact
		return &exitError{exitLeak, re}
	}
	return &exitError{exitUsage, err}
}

// leakHint is the guard's refusal with the flags that accept a false positive.
func leakHint(err error) error {
	return fmt.Errorf("%w\nif a finding is a known false positive, allow it with --allow REGEX (matched against the flagged value) or --allow-file FILE (one REGEX per line)", err)
}
