package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"

	"github.com/codexrec/codexrec/sanitize"
)

func init() {
	register(&command{
		name:    "scan",
		args:    "[flags] FILE...",
		summary: "run the leak guard on recordings (or any text files): exit 3 when something secret-shaped is found",
		flags: func(fs *flag.FlagSet) any {
			c := &scanConfig{}
			fs.BoolVar(&c.json, "json", false, "print what was found as one JSON document on stdout (masked previews only)")
			c.flags.register(fs, false)
			return c
		},
		run:          runScan,
		interspersed: true,
	})
}

type scanConfig struct {
	json  bool
	flags sanitizeFlags
}

// scanJSON is scan --json: every file with what the guard found in it.
type scanJSON struct {
	Leaks int            `json:"leaks"`
	Files []scanFileJSON `json:"files"`
}

type scanFileJSON struct {
	File  string     `json:"file"`
	Leaks []leakJSON `json:"leaks"`
}

type leakJSON struct {
	Rule    string `json:"rule"`
	Line    int    `json:"line"`
	Seq     int64  `json:"seq,omitempty"`
	Pointer string `json:"pointer,omitempty"`
	Preview string `json:"preview"`
}

func runScan(cfg any, args []string, std stdio) error {
	c := cfg.(*scanConfig)
	if len(args) == 0 {
		return usagef("no file to scan")
	}
	z, _, err := c.flags.sanitizer("")
	if err != nil {
		return err
	}
	var leaks int
	report := scanJSON{Files: []scanFileJSON{}}
	for _, path := range args {
		err := z.Guard(path)
		var le *sanitize.LeakError
		fj := scanFileJSON{File: path, Leaks: []leakJSON{}}
		switch {
		case errors.As(err, &le):
			for _, l := range le.Leaks {
				if !c.json {
					fmt.Fprintf(std.out, "%s: %s\n", path, l)
				}
				fj.Leaks = append(fj.Leaks, leakJSON{l.Rule, l.Line, l.Seq, l.Pointer, l.Preview})
			}
			leaks += len(le.Leaks)
		case err != nil:
			return err
		}
		report.Files = append(report.Files, fj)
	}
	if c.json {
		report.Leaks = leaks
		enc := json.NewEncoder(std.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(report); err != nil {
			return err
		}
	}
	if leaks > 0 {
		return &exitError{exitLeak, fmt.Errorf("%d secret-shaped value(s) found; if one is a known false positive, allow it with --allow REGEX (matched against the value) or --allow-file FILE", leaks)}
	}
	fmt.Fprintf(std.err, "codexrec scan: %d file(s) clean\n", len(args))
	return nil
}
