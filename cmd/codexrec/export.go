package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"

	"github.com/codexrec/codexrec/export"
	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/recorder"
)

func init() {
	register(&cli.Command{Name: "export", Args: "--format har|otlp|jsonl FILE... -o OUT  |  --format otlp --endpoint URL FILE...", Flags: exportFlags, Run: runExport, Interspersed: true, Operands: cli.Some("recordings"),
		Summary: "write recordings as HAR 1.2, OTLP/JSON traces or JSON Lines of messages (secrets masked)"})
}

type exportConfig struct {
	export.RunOptions
	format string
}

func exportFlags(fs *flag.FlagSet) any {
	c := &exportConfig{}
	fs.StringVar(&c.format, "format", "", "`FORMAT`: har (HTTP Archive 1.2), otlp (OTLP/JSON traces) or jsonl (one message a line) (required)")
	fs.StringVar(&c.Out, "o", "", "write to `OUT` (required; - for stdout)")
	fs.BoolVar(&c.Replace, "force", false, "overwrite OUT if it exists")
	fs.StringVar(&c.Endpoint, "endpoint", "", "with --format otlp, POST the traces to this OTLP/HTTP `URL` (http://HOST:4318 posts to /v1/traces) instead of writing -o")
	return c
}

func runExport(cfg any, args []string, std cli.IO) error {
	c := cfg.(*exportConfig)
	f, err := export.ParseFormat(c.format)
	switch {
	case err != nil:
		return cli.Usagef("--format: %v", err)
	case c.Endpoint != "" && (f != export.OTLP || c.Out != ""):
		return cli.Usagef("--endpoint goes with --format otlp and without -o")
	case c.Endpoint == "" && c.Out == "":
		return cli.Usagef("-o OUT is required (- for stdout)")
	}
	c.Format, c.Reveal, c.Creator = f, std.Reveal, Version
	c.Warn = func(name string, ps []recorder.Problem) {
		warnProblems(std.Err, "export", name, ps)
	}
	if err = export.Run(context.Background(), std.Out, args, c.RunOptions); errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists (--force replaces it)", c.Out)
	}
	return err
}
