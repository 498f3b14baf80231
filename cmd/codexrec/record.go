package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/codexrec/codexrec/dropin"
	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/proxy"
	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/shim"
	"github.com/codexrec/codexrec/stale"
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
		return runnerError(o.Record(context.Background(), c.out, args, std.In))
	}
	mode, _ := shim.ParseMode(cmp.Or(c.mode, "record"))
	m := &dropin.SessionOptions{Mode: mode, Command: args, Replace: c.mode != ""}
	if err := modes(m, c, replayFlags(flag.NewFlagSet("replay", flag.ContinueOnError)).(*replayConfig), std, nil); err != nil {
		return err
	}
	return runnerError(m.Run(context.Background(), c.out, std.In))
}

// check refuses flags and arguments that do not go together.
func (c *recordConfig) check(args []string, socket bool) error {
	l := wsproxy.ListenFlag(args[min(1, len(args)):])
	_, listenErr := wsproxy.ParseURL(c.o.Listen)
	_, upErr := wsproxy.ParseURL(c.o.Upstream)
	_, modeErr := shim.ParseMode(c.mode)
	if c.out == "-" { // stdout is the wire the client reads
		return cli.Usagef("-o -: stdout carries the server's messages to the client; name a FILE (or DIR/) for the recording")
	}
	if socket {
		return cli.Refuse(cli.When(c.out == "", "-o DIR is required with --listen (one recording per connection)"),
			cli.When(c.o.Upstream == "" && len(args) == 0, "--listen needs --upstream URL or a command: codexrec record --listen "+c.o.Listen+" -o DIR -- codex app-server"),
			cli.When(c.o.Upstream != "" && len(args) > 0, "--upstream and a command exclude each other"),
			cli.When(l != "", "leave --listen "+l+" out of the command: record --listen starts it on a private unix socket"),
			cli.When(listenErr != nil, fmt.Sprintf("--listen: %v", listenErr)),
			cli.When(c.memoryMiB < 0, fmt.Sprintf("--memory-budget: %d MiB: want 0 (the default) or more", c.memoryMiB)),
			cli.When(c.o.Upstream != "" && upErr != nil, fmt.Sprintf("--upstream: %v", upErr)))
	}
	return cli.Refuse(cli.When(c.o.Upstream != "" || c.o.URLFile != "", "--upstream and --url-file need --listen ws://HOST:PORT or unix://PATH"),
		cli.When(c.out == "", "-o FILE is required"),
		cli.When(!wsproxy.IsStdio(l), "the command listens on "+l+", where this proxy sees nothing: record a socket with codexrec record --listen URL -o DIR -- "+strings.Join(wsproxy.WithoutListen(args), " ")),
		cli.When(len(args) == 0, "no command to run: codexrec record -o FILE -- codex app-server"),
		cli.When(modeErr != nil, fmt.Sprintf("--mode: %v", modeErr)))
}

// options are the record runner's settings the flags describe.
func (c *recordConfig) options(std cli.IO) (*dropin.RecordOptions, error) {
	if _, err := parseFailOn(c.stages.failOn); err != nil {
		return nil, cli.Usagef("%v", err)
	}
	o := c.o
	o.Stages, o.Version, o.Stdout, o.Stderr, o.MemoryBudget = c.stages.defaults("", nil), Version, std.Out, std.Err, c.memoryMiB<<20
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
	return &o, nil
}

// modes fills in m, a drop-in session's settings, from record's flags rec and
// replay's rep: the notes and the replay's diagnostics go to stderr and, when set,
// to report too.
func modes(m *dropin.SessionOptions, rec *recordConfig, rep *replayConfig, std cli.IO, report io.Writer) error {
	note := std.Err
	if report != nil {
		note = io.MultiWriter(std.Err, report)
	}
	if m.Command != nil {
		rep.stale.codex = m.Command[0] // --min-codex installed: the codex that would record
	}
	var err error
	if m.Record, err = rec.options(std); err != nil {
		return err
	}
	rstd := std
	rstd.Err = note
	if m.Replay, err = rep.options(rstd); err != nil {
		return err
	}
	m.Log, m.Stale, m.StalePolicy = cli.Prefixed(note, "codexrec: "), stale.Action(rep.stale.Action), rep.stale.policy
	m.Extended = func(r record.Report) error { return rec.stages.report(note, "replay", r) }
	return nil
}
