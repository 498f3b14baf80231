package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/codexrec/codexrec/fixtures"
	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
)

func init() {
	register(&command{
		name:         "capture",
		args:         "--scenario NAME|FILE [--codex PATH | --codex-version V] -o FILE",
		summary:      "record a real codex app-server driven by a scripted client against a local fake model",
		flags:        captureFlags,
		run:          runCapture,
		interspersed: true,
	})
}

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
	if c.scenario == "" {
		return usagef("--scenario is required (shipped: %s)", strings.Join(fixtures.Names(), ", "))
	}
	sc, err := fixtures.Load(c.scenario)
	if err != nil {
		return &exitError{exitUsage, err}
	}
	o, err := c.options(std)
	if err != nil {
		return err
	}
	o.Scenario = sc
	if o.Scenario.MCP {
		o.MCPCommand = mcpCommand()
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	res, err := fixtures.Capture(ctx, o)
	return c.done("capture", o, res, err, std)
}

// options are the capture the flags describe, but its scenario.
func (c *captureConfig) options(std stdio) (fixtures.CaptureOptions, error) {
	if c.out == "" {
		return fixtures.CaptureOptions{}, usagef("-o FILE is required")
	}
	if c.codex != "" && c.codexVersion != "" {
		return fixtures.CaptureOptions{}, usagef("--codex and --codex-version exclude each other")
	}
	if _, err := parseFailOn(c.stages.failOn); err != nil {
		return fixtures.CaptureOptions{}, usagef("%v", err)
	}
	// In a capture the binary's version and the schema's are one.
	c.stages.version = c.codexVersion
	if c.codexVersion == "" {
		c.codexVersion = codexbin.Newest
	}
	bin := c.codex
	if bin == "" {
		var err error
		if bin, err = findCodex(c.codexVersion, c.install, std); err != nil {
			return fixtures.CaptureOptions{}, &exitError{exitUsage, err}
		}
	}
	o := fixtures.CaptureOptions{Codex: bin, Out: c.out, Force: c.force, KeepFailed: c.keepFailed, Transport: c.transport,
		Timeout: c.timeout, Pipeline: c.stages.defaults("", nil), Codexrec: Version}
	if c.verbose {
		o.Stderr = std.err
	}
	return o, nil
}

// done reports a capture's (or rerun's) outcome and turns it into an exit status.
func (c *captureConfig) done(cmd string, o fixtures.CaptureOptions, res *fixtures.CaptureResult, err error, std stdio) error {
	var extErr error
	if res != nil {
		extErr = c.stages.report(std.err, cmd, res.Report)
	}
	var fe *fixtures.FailedError
	var se *sanitize.SettingError
	switch {
	case errors.As(err, &fe) && fe.Kept == "":
		return &exitError{exitUsage, fmt.Errorf("%w\n(no recording written; --keep-failed publishes it anyway)", fe.Err)}
	case errors.As(err, &fe):
		return &exitError{exitUsage, fmt.Errorf("%w\n(recording %s kept: --keep-failed)", fe.Err, fe.Kept)}
	case errors.As(err, &se):
		return settingError(err)
	case errors.Is(err, recorder.ErrExists):
		return createError(err)
	case err != nil && res != nil:
		return finishError(err)
	case err != nil:
		return &exitError{exitUsage, err}
	}
	fmt.Fprintf(std.err, "codexrec %s: %s with codex %s: %d turn(s), %d segment(s), %d model request(s), %.2fs -> %s\n",
		cmd, res.Scenario, orDash(codexVersionOf(o.Codex, c)), len(res.Turns), res.Segments, res.ModelRequests, res.Duration.Seconds(), o.Out)
	return extErr
}

// codexVersionOf names the version captured, for the closing line.
func codexVersionOf(bin string, c *captureConfig) string {
	if c.codex != "" {
		return "at " + bin
	}
	return c.codexVersion
}

// mcpCommand is the fixture MCP server's argv: codexrec itself, as mcp-fixture.
func mcpCommand() []string {
	self, err := os.Executable()
	if err != nil {
		self = os.Args[0]
	}
	return []string{self, "mcp-fixture"}
}
