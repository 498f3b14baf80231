package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"time"

	"github.com/codexrec/codexrec/export"
	"github.com/codexrec/codexrec/recorder"
)

func init() {
	register(&command{
		name:         "export",
		args:         "--format har|otlp|jsonl FILE... -o OUT  |  --format otlp --endpoint URL FILE...",
		summary:      "write recordings as HAR 1.2, OTLP/JSON traces or JSON Lines of messages (secrets masked)",
		flags:        exportFlags,
		run:          runExport,
		interspersed: true,
	})
}

type exportConfig struct {
	format   string
	out      string
	force    bool
	endpoint string
}

func exportFlags(fs *flag.FlagSet) any {
	c := &exportConfig{}
	fs.StringVar(&c.format, "format", "", "`FORMAT`: har (HTTP Archive 1.2), otlp (OTLP/JSON traces) or jsonl (one message a line) (required)")
	fs.StringVar(&c.out, "o", "", "write to `OUT` (required; - for stdout)")
	fs.BoolVar(&c.force, "force", false, "overwrite OUT if it exists")
	fs.StringVar(&c.endpoint, "endpoint", "", "with --format otlp, POST the traces to this OTLP/HTTP `URL` (http://HOST:4318 posts to /v1/traces) instead of writing -o")
	return c
}

func runExport(cfg any, args []string, std stdio) error {
	c := cfg.(*exportConfig)
	if len(args) == 0 {
		return usagef("want one or more recordings")
	}
	f, err := export.ParseFormat(c.format)
	if err != nil {
		return usagef("--format: %v", err)
	}
	switch {
	case c.endpoint != "" && (f != export.OTLP || c.out != ""):
		return usagef("--endpoint goes with --format otlp and without -o")
	case c.endpoint == "" && c.out == "":
		return usagef("-o OUT is required (- for stdout)")
	}
	opts := export.Options{Reveal: std.reveal, Creator: Version}
	if c.endpoint != "" {
		var recs []*recorder.Recording
		for _, path := range args {
			rec, err := recorder.ReadFile(path)
			if err != nil {
				return usageOrIO(err)
			}
			warnProblems(std.err, "export", recordingProblems{rec})
			recs = append(recs, rec)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := export.PushOTLP(ctx, nil, c.endpoint, recs, opts); err != nil {
			return usageOrIO(err)
		}
		return nil
	}
	warn := func(name string, ps []recorder.Problem) {
		warnProblems(std.err, "export", recordingProblems{&recorder.Recording{Name: name, Problems: ps}})
	}
	if c.out == "-" {
		bw := bufio.NewWriter(std.out)
		if err := export.WriteFiles(bw, f, args, opts, warn); err != nil {
			return usageOrIO(err)
		}
		return bw.Flush()
	}
	err = export.WriteFile(c.out, c.force, f, args, opts, warn)
	if errors.Is(err, fs.ErrExist) {
		return usageOrIO(fmt.Errorf("%s exists (use --force to overwrite)", c.out))
	}
	if err != nil {
		return usageOrIO(err)
	}
	return nil
}
