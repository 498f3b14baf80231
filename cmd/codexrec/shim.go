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
	"github.com/codexrec/codexrec/setting"
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
	// The script runs codexrec's shim exec with the settings it fixes (paths made
	// absolute), then codex's arguments.
	exe, err := os.Executable()
	if err != nil {
		return cli.ExitWith(exitUsage, err)
	}
	p, err := c.st.Install(args[1], func(st dropin.Standin) []string {
		command := []string{exe, "shim", "exec", "--self", shim.Self}
		for _, f := range [][2]string{{"--mode", st.Mode}, {"--dir", st.Dir}, {"--file", st.File}, {"--codex", st.Codex}, {"--report", st.Report}} {
			if f[1] != "" {
				command = append(command, f[:]...)
			}
		}
		return append(command, "--")
	})
	if errors.Is(err, shim.ErrNoShell) {
		err = fmt.Errorf("%w: on Windows point the client's codex path at a copy of codexrec named codex.exe", err)
	}
	if errors.As(err, new(*setting.Error)) {
		return settingUsage(err, nil)
	} else if err != nil {
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
	const as = "codexrec (as codex): "
	if err := settings.Load(""); err != nil {
		return app.SayAs(err, as, std.Err, nil)
	}
	f, err := c.st.OpenReport(args)
	if err != nil {
		return app.SayAs(cli.ExitWith(exitUsage, err), as, std.Err, nil)
	}
	var report io.Writer
	if f != nil {
		defer f.Close()
		report = f
	}
	err = c.st.Run(context.Background(), self, args, std.In, func(m *dropin.SessionOptions, listen string) error {
		// A shim has no command line of its own: record's and replay's flags come
		// from the environment.
		rec, err := app.ParseWords("record", dropin.RecordFlagsEnv, c.st.RecordArgs())
		if err != nil {
			return err
		}
		rep, err := app.ParseWords("replay", dropin.ReplayFlagsEnv, c.st.ReplayArgs())
		if err != nil {
			return err
		}
		if listen != "" {
			rep.(*replayConfig).o.Listen = listen
		}
		m.Replace = true
		return modes(m, rec.(*recordConfig), rep.(*replayConfig), std, report)
	})
	return app.SayAs(runnerError(err), as, std.Err, report)
}
