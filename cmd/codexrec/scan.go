package main

import (
	"flag"
	"fmt"
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

func runScan(cfg any, args []string, std stdio) error {
	c := cfg.(*scanConfig)
	if len(args) == 0 {
		return usagef("no file to scan")
	}
	z, _, err := c.flags.sanitizer("")
	if err != nil {
		return err
	}
	report, err := z.ScanFiles(args)
	if err != nil {
		if !c.json { // what was found before the file that could not be read
			report.WriteText(std.out)
		}
		return err
	}
	if c.json {
		err = report.WriteJSON(std.out)
	} else {
		err = report.WriteText(std.out)
	}
	if err != nil {
		return err
	}
	leaks := report.Leaks
	if leaks > 0 {
		return &exitError{exitLeak, fmt.Errorf("%d secret-shaped value(s) found; if one is a known false positive, allow it with --allow REGEX (matched against the value) or --allow-file FILE", leaks)}
	}
	fmt.Fprintf(std.err, "codexrec scan: %d file(s) clean\n", len(args))
	return nil
}
