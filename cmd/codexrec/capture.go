package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/codexrec/codexrec/fixtures"
	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/internal/codexbin"
)

func init() {
	register(&cli.Command{Name: "capture", Args: "--scenario NAME|FILE [--codex PATH | --codex-version V] -o FILE", Flags: captureFlags, Run: runCapture, Interspersed: true, Operands: cli.None(),
		Summary: "record a real codex app-server driven by a scripted client against a local fake model"})
}

type captureConfig struct {
	fixtures.CaptureOptions
	scenario, codexVersion string
	install, verbose, list bool
	json                   bool
	stages                 stageFlags
	progressDone           func() // clears the progress line
}

func captureFlags(fs *flag.FlagSet) any {
	c := &captureConfig{}
	fs.StringVar(&c.scenario, "scenario", "", "shipped scenario `NAME` ("+strings.Join(fixtures.Names(), ", ")+") or a scenario FILE")
	fs.StringVar(&c.Codex, "codex", "", "the codex binary to run (default: the pinned one for --codex-version)")
	fs.StringVar(&c.Out, "o", "", "write the recording to `FILE` (required; - for stdout, once it is published)")
	fs.BoolVar(&c.Force, "force", false, "overwrite FILE if it exists")
	fs.BoolVar(&c.KeepFailed, "keep-failed", false, "publish the recording even when the scenario failed (its trailer says why)")
	fs.BoolVar(&c.verbose, "v", false, "copy codex's stderr to stderr")
	fs.BoolVar(&c.list, "list", false, "list the shipped scenarios and exit")
	fs.BoolVar(&c.json, "json", false, "with --list: print a JSON array of {name, description}")
	fs.StringVar(&c.Transport, "transport", "stdio", "how the scripted client reaches codex: stdio, ws (WebSocket on ws://127.0.0.1, through a relay, to codex on a private unix socket) or unix (the same on a unix socket)")
	fs.DurationVar(&c.Timeout, "timeout", fixtures.DefaultTimeout, "how long to wait for each step (a response, a notification, an exit)")
	// In a capture the binary's version and the schema's are one: --codex-version picks both.
	fs.StringVar(&c.codexVersion, "codex-version", "", "run codex `VERSION` installed by `codexrec codex install`, and validate against its schema (default "+codexbin.Newest+")")
	fs.BoolVar(&c.install, "install", false, "install --codex-version's binary from the npm registry when it is missing")
	c.stages.register(fs, false)
	return c
}

func runCapture(cfg any, args []string, std cli.IO) (err error) {
	c := cfg.(*captureConfig)
	if c.list {
		return fixtures.WriteList(std.Out, c.json)
	} else if c.json {
		return cli.Usagef("--json goes with --list (a capture's outcome is a recording)")
	} else if c.scenario == "" {
		return cli.Usagef("--scenario is required (shipped: %s)", strings.Join(fixtures.Names(), ", "))
	}
	if c.Scenario, err = fixtures.Load(c.scenario); err != nil {
		return err
	}
	if err := c.options("capture", std); err != nil {
		return err
	}
	if c.Scenario.MCP {
		c.MCPCommand = mcpCommand()
	}
	ctx, stop := cli.Interruptible()
	defer stop()
	res, err := fixtures.Capture(ctx, c.CaptureOptions)
	return c.done("capture", res, err, std)
}

// options completes the capture (or rerun, cmd) the flags describe, but its
// scenario; a terminal shows the step running.
func (c *captureConfig) options(cmd string, std cli.IO) (err error) {
	if c.Out == "" {
		return cli.Usagef("-o FILE is required (- for stdout)")
	} else if c.Out == "-" {
		c.To = std.Out
	}
	if c.Codex != "" && c.codexVersion != "" {
		return cli.Usagef("--codex and --codex-version exclude each other")
	}
	c.stages.Version = c.codexVersion // in a capture the binary's version and the schema's are one
	if c.Codex == "" {
		c.codexVersion = cmp.Or(c.codexVersion, codexbin.Newest)
		if c.Codex, err = findCodex(c.codexVersion, c.install, true, std); err != nil {
			return err
		}
	}
	c.Pipeline, c.Codexrec = c.stages.Defaults, Version
	c.Progress, c.progressDone = cli.Progress(std.Err, "codexrec "+cmd+": ")
	if c.verbose {
		c.Stderr = std.Err
	}
	return nil
}

// done reports a capture's (or rerun's) outcome and turns it into an exit status.
func (c *captureConfig) done(cmd string, res *fixtures.CaptureResult, err error, std cli.IO) error {
	c.progressDone()
	out := c.Out
	if c.To != nil {
		out = "stdout"
	}
	var extErr error
	if res != nil {
		extErr = c.stages.report(std.Err, cmd, res.Report)
	}
	var fe *fixtures.FailedError
	switch {
	case errors.As(err, &fe) && fe.Kept == "":
		return cli.ExitWith(exitUsage, fmt.Errorf("%w\n(no recording written; --keep-failed publishes it anyway)", fe.Err))
	case errors.As(err, &fe):
		return cli.ExitWith(exitUsage, fmt.Errorf("%w\n(recording %s kept: --keep-failed)", fe.Err, out))
	case err != nil:
		return exitFor(err)
	}
	fmt.Fprintf(std.Log, "%s\n", res.Summary(cmp.Or(c.codexVersion, "at "+c.Codex), out))
	return extErr
}

// mcpCommand is the fixture MCP server's argv: codexrec itself, as mcp-fixture.
func mcpCommand() []string {
	self, _ := os.Executable()
	return []string{cmp.Or(self, os.Args[0]), "mcp-fixture"}
}
