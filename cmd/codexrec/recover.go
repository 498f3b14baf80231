package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/codexrec/codexrec/record"
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
	var opt record.RecoverOptions
	opt.Force = c.force
	if !c.noGuard {
		z, _, err := c.flags.sanitizer("")
		if err != nil {
			return err
		}
		opt.Guard = z
	}
	where, t, err := record.Recover(tmp, target, opt)
	var kept *recorder.KeptElsewhereError
	var le *sanitize.LeakError
	var re *sanitize.RedactedError
	switch {
	case errors.As(err, &kept):
		return &exitError{exitUsage, err}
	case errors.As(err, &le):
		return &exitError{exitLeak, leakHint(err)}
	case errors.As(err, &re):
	case err != nil:
		return &exitError{exitUsage, err}
	}
	if t == nil {
		fmt.Fprintf(std.err, "codexrec recover: %s was already published as %s; removed the leftover name\n", tmp, where)
		return nil
	}
	fmt.Fprintf(std.err, "codexrec recover: published %s (%d c2s, %d s2c, %d stderr frames; ended %s)\n",
		where, t.Frames["c2s"], t.Frames["s2c"], t.Frames["stderr"], t.Ended)
	if re != nil {
		return &exitError{exitLeak, re}
	}
	return nil
}
