package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/codexrec/codexrec/dropin"
	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/proxy"
	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/setting"
	"github.com/codexrec/codexrec/shim"
	"github.com/codexrec/codexrec/wsproxy"
)

func init() {
	register(&cli.Command{
		Config:  true,
		Name:    "record",
		Args:    "-o FILE [flags] -- COMMAND [ARGS...]  |  --listen URL -o DIR [--upstream URL | -- COMMAND...]",
		Summary: "run COMMAND (codex app-server) as a byte-faithful proxy and record both directions (stdio, or WebSocket with --listen)",
		Flags:   recordFlags,
		Run:     runRecord,
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
	settings.Apply("record", fs)
	return c
}

func runRecord(cfg any, args []string, std cli.IO) error {
	c := cfg.(*recordConfig)
	// Without --mode, record never replaces FILE unless --force (Plain); --mode
	// record (and a recording named in a directory) replaces a former run's.
	mode, _ := shim.ParseMode(cmp.Or(c.mode, "record"))
	m := &dropin.SessionOptions{Mode: mode, Command: args, Replace: c.mode != "", Plain: c.mode == ""}
	var rep *replayConfig // without --mode, or on a socket, record replays nothing
	if c.mode != "" && !c.o.Socket() {
		rep = replayFlags(flag.NewFlagSet("replay", flag.ContinueOnError)).(*replayConfig)
	}
	err := modes(m, c, rep, std, nil)
	if err == nil {
		err = c.check(m.Record, args)
	}
	if err != nil {
		return err
	}
	return runnerError(m.Run(context.Background(), c.out, std.In))
}

// check refuses flags and arguments that do not go together: -o's, --mode's, then
// the runner's settings o (dropin.RecordOptions.Validate).
func (c *recordConfig) check(o *dropin.RecordOptions, args []string) error {
	_, modeErr := shim.ParseMode(c.mode)
	err := cli.Refuse(cli.When(c.out == "-", "-o -: stdout carries the server's messages to the client; name a FILE (or DIR/) for the recording"), // stdout is the wire the client reads
		cli.When(o.Socket() && c.out == "", "-o DIR is required with --listen (one recording per connection)"),
		cli.When(c.out == "", "-o FILE is required"),
		cli.When(!o.Socket() && modeErr != nil, fmt.Sprintf("--mode: %v", modeErr)))
	if err != nil {
		return err
	}
	return settingUsage(o.Validate(args), func(se *setting.Error) string {
		switch {
		case errors.Is(se, dropin.ErrNoCommand) && o.Socket():
			return "--listen needs --upstream URL or a command: codexrec record --listen " + o.Listen + " -o DIR -- codex app-server"
		case errors.Is(se, dropin.ErrNoCommand):
			return "no command to run: codexrec record -o FILE -- codex app-server"
		case errors.Is(se, dropin.ErrOwnListen):
			return "leave --listen " + se.Value + " out of the command: record --listen starts it on a private unix socket"
		case errors.Is(se, dropin.ErrListens):
			return "the command listens on " + se.Value + ", where this proxy sees nothing: record a socket with codexrec record --listen URL -o DIR -- " + strings.Join(wsproxy.WithoutListen(args), " ")
		}
		return dropinHint(c.memoryMiB)(se)
	})
}

// options are the record runner's settings the flags describe.
func (c *recordConfig) options(std cli.IO) *dropin.RecordOptions {
	o := c.o
	o.Stages, o.Version, o.Stdout, o.Stderr, o.MemoryBudget = c.stages.Defaults, Version, std.Out, std.Err, c.memoryMiB<<20
	o.Log = cli.Prefixed(std.Err, "codexrec record: ")
	o.Orphan = func(p string) {
		fmt.Fprintf(std.Err, "codexrec record: %s is a recording a killed codexrec left unpublished; complete it with: codexrec recover %s\n", p, p)
	}
	o.Report = func(conn int, r record.Report) error {
		if conn > 0 {
			return c.stages.report(std.Err, fmt.Sprintf("record (connection %d)", conn), r)
		}
		return c.stages.report(std.Err, "record", r)
	}
	return &o
}

// modes fills in m, a drop-in session's settings, from record's flags rec and
// replay's rep (nil: a session that replays nothing, m.Replay left nil): the
// notes and the replay's diagnostics go to stderr and, when set, to report too.
func modes(m *dropin.SessionOptions, rec *recordConfig, rep *replayConfig, std cli.IO, report io.Writer) error {
	note := std.Err
	if report != nil {
		note = io.MultiWriter(std.Err, report)
	}
	m.Log = cli.Prefixed(note, "codexrec: ")
	m.Extended = func(r record.Report) error { return rec.stages.report(note, "replay", r) }
	if m.Record = rec.options(std); rep == nil {
		return nil
	}
	if len(m.Command) > 0 {
		rep.stale.codex = m.Command[0] // --min-codex installed: the codex that would record
	}
	rstd := std
	rstd.Err = note
	var err error
	m.Replay, err = rep.options(rstd)
	return err
}
