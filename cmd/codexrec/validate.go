package main

import (
	"errors"
	"flag"

	"github.com/codexrec/codexrec/validate"
)

func init() {
	register(&command{
		name:         "validate",
		args:         "[flags] FILE...",
		summary:      "check every message of recordings against the exact Codex version's protocol schema",
		flags:        validateFlags,
		run:          runValidate,
		interspersed: true,
	})
}

type validateConfig struct {
	json, jsonl bool
	failOn      string
	opts        validate.Options
}

func validateFlags(fs *flag.FlagSet) any {
	c := &validateConfig{}
	fs.BoolVar(&c.json, "json", false, "print the report as one JSON document on stdout: every file with its versions, frame count and findings")
	fs.BoolVar(&c.jsonl, "jsonl", false, "print findings as JSON Lines on stdout, one object per finding (what --json printed before)")
	fs.StringVar(&c.failOn, "fail-on", "error", "exit 1 on findings of this `level` or worse: "+failOnHelp+" (error: invalid, unknown-method, unpaired-response; warning adds undeclared-field and experimental)")
	schemaFlags(fs, &c.opts.Version, &c.opts.SchemaDir)
	return c
}

// schemaFlags are shared by validate and record.
func schemaFlags(fs *flag.FlagSet, version, dir *string) {
	fs.StringVar(version, "codex-version", "", "validate against this Codex `VERSION` (default: from the initialize response's userAgent; the nearest older embedded version when it is not embedded)")
	fs.StringVar(dir, "schema-dir", "", "use the schemas in `DIR` (from codex app-server generate-json-schema --out DIR) instead of the embedded ones")
}

func runValidate(cfg any, args []string, std stdio) error {
	c := cfg.(*validateConfig)
	level, err := parseFailOn(c.failOn)
	if err != nil {
		return usagef("%v", err)
	}
	if len(args) == 0 {
		return usagef("no recording to validate")
	}
	if c.json && c.jsonl {
		return usagef("--json and --jsonl exclude each other")
	}
	format := validate.Text
	switch {
	case c.json:
		format = validate.JSON
	case c.jsonl:
		format = validate.JSONL
	}
	failed, err := validate.Files(args, std.out, validate.FilesOptions{Options: c.opts, Format: format,
		Fails: level.fails, Log: prefixed(std.err, "codexrec validate: ")})
	switch {
	case errors.Is(err, validate.ErrUnread):
		return &exitError{code: exitUsage}
	case err != nil:
		return &exitError{exitUsage, err}
	case failed:
		return &exitError{code: exitFindings}
	}
	return nil
}
