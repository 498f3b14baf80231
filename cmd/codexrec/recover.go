package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
)

func init() {
	register(&command{
		name:         "recover",
		args:         "[flags] .FILE.*.tmp",
		summary:      "complete and publish a recording whose codexrec was killed (leak guard, trailer \"proxy-killed\")",
		flags:        recoverFlags,
		run:          runRecover,
		interspersed: true,
	})
}

type recoverConfig struct {
	out     string
	force   bool
	noGuard bool
	flags   sanitizeFlags
}

func recoverFlags(fs *flag.FlagSet) any {
	c := &recoverConfig{}
	fs.StringVar(&c.out, "o", "", "publish as `FILE` (default: the name the recording was started for)")
	fs.BoolVar(&c.force, "force", false, "replace FILE if it exists (a regular file or a symbolic link)")
	fs.BoolVar(&c.noGuard, "no-leak-guard", false, "publish even if the recording holds secret-shaped values (dangerous)")
	c.flags.register(fs, false)
	return c
}

func runRecover(cfg any, args []string, std stdio) error {
	c := cfg.(*recoverConfig)
	if len(args) != 1 {
		return usagef("want exactly one temporary recording (.NAME.*.tmp)")
	}
	tmp, target := args[0], c.out
	if _, err := os.Lstat(tmp); err != nil {
		return &exitError{exitUsage, err}
	}
	if target == "" {
		if target = recorder.TargetOf(tmp); target == "" {
			return usagef("%s is not named like a recording in progress (.NAME.*.tmp): say where to publish it with -o FILE", tmp)
		}
	}
	var opt recorder.RecoverOptions
	var redacted []sanitize.Leak
	opt.Force = c.force
	if !c.noGuard {
		z, _, err := c.flags.sanitizer("")
		if err != nil {
			return err
		}
		// Findings are redacted in place and the recording published; only what
		// the guard cannot redact keeps it from being published.
		opt.BeforePublish = func(p string) error {
			r, err := z.GuardRedact(p)
			redacted = r
			if le, ok := err.(*sanitize.LeakError); ok {
				le.File = p
			}
			return err
		}
	}
	where, t, err := recorder.Recover(tmp, target, opt)
	var kept *recorder.KeptElsewhereError
	switch {
	case errors.As(err, &kept):
		return &exitError{exitUsage, err}
	case err != nil:
		var le *sanitize.LeakError
		if errors.As(err, &le) {
			return &exitError{exitLeak, leakHint(fmt.Errorf("%w (the recording stays at %s)", le, tmp))}
		}
		return &exitError{exitUsage, err}
	}
	if t == nil {
		fmt.Fprintf(std.err, "codexrec recover: %s was already published as %s; removed the leftover name\n", tmp, where)
		return nil
	}
	fmt.Fprintf(std.err, "codexrec recover: published %s (%d c2s, %d s2c, %d stderr frames; ended %s)\n",
		where, t.Frames["c2s"], t.Frames["s2c"], t.Frames["stderr"], t.Ended)
	if len(redacted) > 0 {
		return &exitError{exitLeak, &sanitize.RedactedError{File: where, Leaks: redacted}}
	}
	return nil
}
