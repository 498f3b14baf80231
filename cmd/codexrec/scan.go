package main

import (
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
			c.flags.register(fs, false)
			return c
		},
		run:          runScan,
		interspersed: true,
	})
}

type scanConfig struct {
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
	var leaks int
	for _, path := range args {
		err := z.Guard(path)
		var le *sanitize.LeakError
		switch {
		case errors.As(err, &le):
			for _, l := range le.Leaks {
				fmt.Fprintf(std.out, "%s: %s\n", path, l)
			}
			leaks += len(le.Leaks)
		case err != nil:
			return err
		}
	}
	if leaks > 0 {
		return &exitError{exitLeak, fmt.Errorf("%d secret-shaped value(s) found; if one is a known false positive, allow it with --allow REGEX (matched against the value) or --allow-file FILE", leaks)}
	}
	fmt.Fprintf(std.err, "codexrec scan: %d file(s) clean\n", len(args))
	return nil
}
