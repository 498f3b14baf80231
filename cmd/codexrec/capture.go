package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/codexrec/codexrec/fixtures"
	"github.com/codexrec/codexrec/fixtures/scenario"
	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/proxy"
	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/wire"
)

func init() {
	register(&command{
		name:    "capture",
		args:    "--scenario NAME|FILE [--codex PATH | --codex-version V] -o FILE",
		summary: "record a real codex app-server driven by a scripted client against a local fake model",
		flags:   captureFlags,
		run:     runCapture,
	})
}

// captureSalt keys sanitize placeholders in captures unless --salt is given, so two
// captures of a scenario get the same placeholders. Captures carry no real secrets:
// the only key is the fake model's, which never reaches the wire.
const captureSalt = "codexrec-capture"

type captureConfig struct {
	scenario     string
	codex        string
	codexVersion string
	install      bool
	out          string
	force        bool
	keepFailed   bool
	verbose      bool
	transport    string
	list         bool
	timeout      time.Duration
	stages       stageFlags
	// derived is the scenario rerun derived from a recording (instead of --scenario).
	derived *scenario.Scenario
	// result receives what the run did, for rerun's report.
	result *fixtures.Result
}

func captureFlags(fs *flag.FlagSet) any {
	c := &captureConfig{}
	fs.StringVar(&c.scenario, "scenario", "", "shipped scenario `NAME` ("+strings.Join(fixtures.Names(), ", ")+") or a scenario FILE")
	fs.StringVar(&c.codex, "codex", "", "the codex binary to run (default: the pinned one for --codex-version)")
	fs.StringVar(&c.out, "o", "", "write the recording to `FILE` (required)")
	fs.BoolVar(&c.force, "force", false, "overwrite FILE if it exists")
	fs.BoolVar(&c.keepFailed, "keep-failed", false, "publish the recording even when the scenario failed (its trailer says why)")
	fs.BoolVar(&c.verbose, "v", false, "copy codex's stderr to stderr")
	fs.BoolVar(&c.list, "list", false, "list the shipped scenarios and exit")
	fs.StringVar(&c.transport, "transport", "stdio", "how the scripted client reaches codex: stdio, ws (WebSocket on ws://127.0.0.1, through a relay, to codex on a private unix socket) or unix (the same on a unix socket)")
	fs.DurationVar(&c.timeout, "timeout", fixtures.DefaultTimeout, "how long to wait for each step (a response, a notification, an exit)")
	// In a capture the binary's version and the schema's are one: --codex-version
	// picks both.
	fs.StringVar(&c.codexVersion, "codex-version", "", "run codex `VERSION` installed by `codexrec codex install`, and validate against its schema (default "+codexbin.Newest+")")
	fs.BoolVar(&c.install, "install", false, "install --codex-version's binary from the npm registry when it is missing")
	c.stages.register(fs, false)
	return c
}

func runCapture(cfg any, args []string, std stdio) error {
	c := cfg.(*captureConfig)
	if c.list {
		for _, n := range fixtures.Names() {
			s, _ := fixtures.Shipped(n)
			fmt.Fprintf(std.out, "%-18s %s\n", n, s.Description)
		}
		return nil
	}
	if len(args) > 0 {
		return usagef("unexpected arguments %q", args)
	}
	if c.scenario == "" && c.derived == nil {
		return usagef("--scenario is required (shipped: %s)", strings.Join(fixtures.Names(), ", "))
	}
	if c.out == "" {
		return usagef("-o FILE is required")
	}
	sc, err := c.derived, error(nil)
	if sc == nil {
		if sc, err = fixtures.Load(c.scenario); err != nil {
			return &exitError{exitUsage, err}
		}
	}
	c.stages.version = c.codexVersion
	if c.codex != "" && c.codexVersion != "" {
		return usagef("--codex and --codex-version exclude each other")
	}
	if c.codexVersion == "" {
		c.codexVersion = codexbin.Newest
	}
	bin := c.codex
	if bin == "" {
		if bin, err = findCodex(c.codexVersion, c.install, std); err != nil {
			return &exitError{exitUsage, err}
		}
	}
	if !c.force {
		if _, err := os.Lstat(c.out); err == nil {
			return createError(fmt.Errorf("%s: %w", c.out, recorder.ErrExists))
		}
	}
	var mcp []string
	if sc.MCP {
		self, err := os.Executable()
		if err != nil {
			return &exitError{exitUsage, fmt.Errorf("finding codexrec for the fixture MCP server: %w", err)}
		}
		mcp = []string{self, "mcp-fixture"}
	}

	// The hooks run once the recording exists (Run calls them, Start does not).
	var s *record.Session
	fcfg := fixtures.Config{Scenario: sc, Codex: bin, MCPCommand: mcp, Timeout: c.timeout, Transport: c.transport,
		Tap:  func(f *wire.Frame) error { return s.Frame(f) },
		Idle: func() error { return s.Writer.Flush() },
		Segment: func(n int, argv []string) error {
			if s.Sanitizer != nil {
				argv = s.Sanitizer.Strings(argv)
			}
			if s.Validator != nil && n > 1 {
				s.Validator.Restart()
			}
			return s.Writer.WriteEntry(recorder.Entry{Type: recorder.TypeSegment, Time: s.Writer.Since(), Segment: n, Command: argv})
		},
		Exit: func(n int, r proxy.Result) error {
			return s.Writer.WriteEntry(recorder.Entry{Type: recorder.TypeExit, Time: s.Writer.Since(), Segment: n, ExitCode: r.ExitCode, Signal: r.KilledBy})
		},
	}
	if c.verbose {
		fcfg.Stderr = std.err
	}
	sess, err := fixtures.Start(fcfg)
	if err != nil {
		return &exitError{exitUsage, err}
	}
	defer sess.Close()

	if s, err = c.stages.session("", func(o *sanitize.Options) { captureSanitizer(o, sess) }); err != nil {
		return err
	}
	h := recorder.Header{Codexrec: Version, Command: sess.PortableCommand(), Scenario: sc.Name, Notes: sc.Notes}
	if c.transport == "ws" || c.transport == "unix" {
		h.Socket = &recorder.SocketInfo{Transport: c.transport, Session: "capture", Connection: 1, Path: "/"}
	}
	if err := s.Create(c.out, h, recorder.Options{Force: c.force}); err != nil {
		return createError(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	res, runErr := sess.Run(ctx)
	if c.result != nil {
		*c.result = res
	}

	t := recorder.Trailer{Ended: recorder.EndClientEOF}
	if n := len(res.Exits); n > 0 {
		last := res.Exits[n-1]
		t.ExitCode, t.Signal = last.ExitCode, last.KilledBy
		if !last.ClientEOF {
			t.Ended = recorder.EndChildExit
		}
	}
	if runErr != nil {
		// The error may quote codex's stderr, which names the temporary directories:
		// Finish sanitizes the trailer's error.
		t.Ended, t.Error = recorder.EndError, runErr.Error()
	}
	if runErr != nil && !c.keepFailed {
		c.stages.report(std.err, "capture", s.Report())
		s.Writer.Abort()
		return &exitError{exitUsage, fmt.Errorf("%w\n(no recording written; --keep-failed publishes it anyway)", runErr)}
	}
	_, finErr := s.Finish(t)
	extErr := c.stages.report(std.err, "capture", s.Report())
	if finErr != nil {
		return finishError(finErr)
	}
	if runErr != nil {
		return &exitError{exitUsage, fmt.Errorf("%w\n(recording %s kept: --keep-failed)", runErr, c.out)}
	}
	fmt.Fprintf(std.err, "codexrec capture: %s with codex %s: %d turn(s), %d segment(s), %d model request(s), %.2fs -> %s\n",
		sc.Name, orDash(codexVersionOf(bin, c)), len(res.Turns), res.Segments, res.ModelRequests, res.Duration.Seconds(), c.out)
	return extErr
}

// captureSanitizer amends the sanitizer's options for a capture: the session's
// temporary CODEX_HOME and workspace map to placeholders (in front of the default
// maps), and placeholders are keyed with a fixed salt unless --salt says otherwise.
func captureSanitizer(opts *sanitize.Options, sess *fixtures.Session) {
	if opts.Salt == "" {
		opts.Salt = captureSalt
	}
	getenv := func(k string) string {
		if k == "CODEX_HOME" {
			return sess.Home
		}
		return os.Getenv(k)
	}
	maps := sanitize.DefaultMaps(sess.Workspace, getenv)
	for _, m := range opts.Maps {
		maps = sanitize.WithPathMap(maps, m.From, m.To)
	}
	opts.Maps = maps
}

// codexVersionOf names the version captured, for the closing line.
func codexVersionOf(bin string, c *captureConfig) string {
	if c.codex != "" {
		return "at " + bin
	}
	return c.codexVersion
}
