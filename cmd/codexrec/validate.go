package main

import (
	"errors"
	"flag"

	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/validate"
)

func init() {
	register(&cli.Command{Name: "validate", Args: "[flags] FILE...", Flags: validateFlags, Run: runValidate, Interspersed: true, Operands: cli.Some("recordings"),
		Summary: "check every message of recordings against the exact Codex version's protocol schema"})
}

type validateConfig struct {
	json, jsonl bool
	failOn      *failLevel
	opts        validate.FilesOptions
}

func validateFlags(fs *flag.FlagSet) any {
	c := &validateConfig{}
	fs.BoolVar(&c.json, "json", false, "print the report as one JSON document on stdout: every file with its versions, frame count and findings")
	fs.BoolVar(&c.jsonl, "jsonl", false, "print findings as JSON Lines on stdout, one object per finding (what --json printed before)")
	c.failOn = failOnFlag(fs, cli.Error, "exit 1 on findings of this `level` or worse: "+failOnHelp+" (error: invalid, unknown-method, unpaired-response; warning adds undeclared-field and experimental)")
	schemaFlags(fs, &c.opts.Version, &c.opts.SchemaDir)
	return c
}

func runValidate(cfg any, args []string, std cli.IO) error {
	c := cfg.(*validateConfig)
	switch {
	case c.json && c.jsonl:
		return cli.Usagef("--json and --jsonl exclude each other")
	case c.json:
		c.opts.Format = validate.JSON
	case c.jsonl:
		c.opts.Format = validate.JSONL
	}
	c.opts.Fails, c.opts.Log = c.failOn.fails, std.Log
	failed, err := validate.Files(args, std.Out, c.opts)
	if errors.Is(err, validate.ErrUnread) {
		return verdict(nil, true, false)
	}
	return verdict(err, false, failed)
}
