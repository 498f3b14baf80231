package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/codexrec/codexrec/dropin"
	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/shim"
)

func init() {
	register(&cli.Command{
		Config:  true,
		Name:    "shim",
		Args:    "install [flags] DIR | exec --self PATH [flags] -- CODEX-ARGS...",
		Summary: "install DIR/codex, a stand-in for codex that records or replays app-server sessions (docs/dropin.md)",
		Flags:   shimFlags,
		Run:     runShimCommand,
		// Flags follow the subcommand word; "--" ends them before codex's arguments.
		Interspersed: true,
	})
}

type shimConfig struct {
	self string
	st   dropin.Standin // the settings the script fixes
}

func shimFlags(fs *flag.FlagSet) any {
	c := &shimConfig{}
	fs.StringVar(&c.self, "self", "", "exec: the `PATH` the shim was started as (the script passes $0)")
	fs.StringVar(&c.st.Mode, "mode", "", "fix the `MODE` (record, replay, auto, passthrough, extend) instead of reading CODEXREC_MODE")
	fs.StringVar(&c.st.Dir, "dir", "", "fix the recordings' `DIR` instead of reading CODEXREC_DIR")
	fs.StringVar(&c.st.File, "file", "", "use this one recording `FILE` for every session")
	fs.StringVar(&c.st.Report, "report", "", "exec: append the replay's diagnostics and a failed session's error to `FILE` too, instead of CODEXREC_LOG")
	fs.StringVar(&c.st.Codex, "codex", "", "fix the real codex `PATH` instead of reading CODEXREC_CODEX or searching PATH")
	return c
}

func runShimCommand(cfg any, args []string, std cli.IO) error {
	c := cfg.(*shimConfig)
	switch {
	case len(args) == 0:
		return cli.Usagef("want install DIR or exec")
	case args[0] == "exec":
		return shimMain(cmp.Or(c.self, "codex"), c, args[1:], std)
	case args[0] != "install":
		return cli.Usagef("unknown shim subcommand %q (want install or exec)", args[0])
	case len(args) != 2:
		return cli.Usagef("want shim install DIR")
	}
	if _, err := shim.ParseMode(c.st.Mode); err != nil {
		return cli.Usagef("--mode: %v", err)
	}
	// The script runs codexrec's shim exec with the settings it fixes (paths made
	// absolute), then codex's arguments.
	exe, err := os.Executable()
	st, stErr := c.st.Abs()
	if err = errors.Join(err, stErr); err != nil {
		return cli.ExitWith(exitUsage, err)
	}
	command := []string{exe, "shim", "exec", "--self", shim.Self}
	for _, f := range [][2]string{{"--mode", st.Mode}, {"--dir", st.Dir}, {"--file", st.File}, {"--codex", st.Codex}, {"--report", st.Report}} {
		if f[1] != "" {
			command = append(command, f[:]...)
		}
	}
	p, err := shim.Install(args[1], append(command, "--"))
	if errors.Is(err, shim.ErrNoShell) {
		err = fmt.Errorf("%w: on Windows point the client's codex path at a copy of codexrec named codex.exe", err)
	}
	if err != nil {
		return cli.ExitWith(exitUsage, err)
	}
	abs, _ := filepath.Abs(filepath.Dir(p))
	fmt.Fprintf(std.Out, "%s\nput it first on PATH: export PATH=%s:$PATH\n", p, abs)
	return nil
}

// shimMain is codexrec started as codex, by the script or a symlink: the session
// (dropin.Standin.Run), its report (--report, else CODEXREC_LOG) and its errors
// said as codex's.
func shimMain(self string, c *shimConfig, args []string, std cli.IO) error {
	if err := settings.Load(""); err != nil {
		return asCodex(err, std, nil)
	}
	f, err := c.st.OpenReport(args)
	if err != nil {
		return asCodex(cli.ExitWith(exitUsage, err), std, nil)
	}
	var report io.Writer
	if f != nil {
		defer f.Close()
		report = f
	}
	err = c.st.Run(context.Background(), self, args, std.In, func(m *dropin.SessionOptions, listen string) error {
		// A shim has no command line of its own: record's and replay's flags come
		// from the environment.
		rec, err := envFlags[*recordConfig](dropin.RecordFlagsEnv, c.st.RecordArgs(), recordFlags)
		if err != nil {
			return err
		}
		rep, err := envFlags[*replayConfig](dropin.ReplayFlagsEnv, c.st.ReplayArgs(), replayFlags)
		if err != nil {
			return err
		}
		if listen != "" {
			rep.o.Listen = listen
		}
		m.Replace = true
		return modes(m, rec, rep, std, report)
	})
	return asCodex(runnerError(err), std, report)
}

// envFlags parses a stand-in's flags of a command (flags) from the words args of
// the environment variable env.
func envFlags[T any](env string, args []string, flags func(*flag.FlagSet) any) (T, error) {
	fs := flag.NewFlagSet(env, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg := flags(fs).(T)
	err := fs.Parse(args)
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected %q", fs.Arg(0))
	}
	if err != nil {
		return cfg, cli.ExitWith(exitUsage, fmt.Errorf("%s: %v", env, err))
	}
	return cfg, nil
}

// asCodex prints err as codexrec standing in for codex (not as the shim command the
// script runs), with its exit status on report too when set, and returns its exit
// status alone.
func asCodex(err error, std cli.IO, report io.Writer) error {
	var ee *cli.ExitError
	if err == nil {
		return nil
	} else if !errors.As(err, &ee) {
		ee = &cli.ExitError{Code: exitUsage, Err: err}
	}
	if report != nil {
		fmt.Fprintf(report, "codexrec (as codex): exit %d: %s\n", ee.Code, sanitize.MaskText(err.Error()))
	}
	if ee.Err != nil {
		fmt.Fprintf(std.Err, "codexrec (as codex): %s\n", sanitize.MaskText(ee.Err.Error()))
	}
	return cli.ExitWith(ee.Code, nil)
}
