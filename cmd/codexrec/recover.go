package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/sanitize"
)

func init() {
	register(&cli.Command{Name: "recover", Args: "[flags] .FILE.*.tmp", Flags: recoverFlags, Run: runRecover, Interspersed: true, Operands: cli.One("temporary recording (.NAME.*.tmp)"),
		Summary: "complete and publish a recording whose codexrec was killed (leak guard, trailer \"proxy-killed\")"})
}

type recoverConfig struct {
	record.RecoverOptions
	out     string
	noGuard bool
	flags   sanitize.Config
}

func recoverFlags(fs *flag.FlagSet) any {
	c := &recoverConfig{}
	fs.StringVar(&c.out, "o", "", "publish as `FILE` (default: the name the recording was started for)")
	fs.BoolVar(&c.Force, "force", false, "replace FILE if it exists (a regular file or a symbolic link)")
	fs.BoolVar(&c.noGuard, "no-leak-guard", false, "publish even if the recording holds secret-shaped values (dangerous)")
	sanitizeFlags(fs, &c.flags, false)
	return c
}

func runRecover(cfg any, args []string, std cli.IO) (err error) {
	c := cfg.(*recoverConfig)
	if c.out == "-" {
		return cli.Usagef("-o -: recover publishes the recording as a file in place of the temporary one; name a FILE")
	}
	if !c.noGuard {
		if c.Guard, _, err = sanitizer(c.flags, ""); err != nil {
			return err
		}
	}
	where, t, err := record.Recover(args[0], c.out, c.RecoverOptions)
	var re *sanitize.RedactedError
	switch {
	case errors.Is(err, record.ErrNotInProgress):
		return cli.Usagef("%s is not named like a recording in progress (.NAME.*.tmp): say where to publish it with -o FILE", args[0])
	case err != nil && !errors.As(err, &re):
		return leakCodes.Exit(err, exitUsage)
	case t == nil:
		fmt.Fprintf(std.Log, "%s was already published as %s; removed the leftover name\n", args[0], where)
		return nil
	}
	fmt.Fprintf(std.Log, "published %s (%d c2s, %d s2c, %d stderr frames; ended %s)\n",
		where, t.Frames["c2s"], t.Frames["s2c"], t.Frames["stderr"], t.Ended)
	if re != nil {
		return cli.ExitWith(exitLeak, re)
	}
	return nil
}
