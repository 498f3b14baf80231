package main

import (
	"errors"
	"flag"
	"fmt"
	"github.com/codexrec/codexrec/sanitize"
	"io"
	"os"
	"path/filepath"

	"github.com/codexrec/codexrec/dropin"
	"github.com/codexrec/codexrec/shim"
)

func init() {
	register(&command{
		name:    "shim",
		args:    "install [flags] DIR | exec --self PATH [flags] -- CODEX-ARGS...",
		summary: "install DIR/codex, a stand-in for codex that records or replays app-server sessions (docs/dropin.md)",
		flags:   shimFlags,
		run:     runShimCommand,
		// Flags follow the subcommand word; "--" ends them before codex's arguments.
		interspersed: true,
	})
}

type shimConfig struct {
	self, mode, dir, file, real, report string
}

func shimFlags(fs *flag.FlagSet) any {
	c := &shimConfig{}
	fs.StringVar(&c.self, "self", "", "exec: the `PATH` the shim was started as (the script passes $0)")
	fs.StringVar(&c.mode, "mode", "", "fix the `MODE` (record, replay, auto, passthrough, extend) instead of reading CODEXREC_MODE")
	fs.StringVar(&c.dir, "dir", "", "fix the recordings' `DIR` instead of reading CODEXREC_DIR")
	fs.StringVar(&c.file, "file", "", "use this one recording `FILE` for every session")
	fs.StringVar(&c.report, "report", "", "exec: append the replay's diagnostics and a failed session's error to `FILE` too, instead of CODEXREC_LOG")
	fs.StringVar(&c.real, "codex", "", "fix the real codex `PATH` instead of reading CODEXREC_CODEX or searching PATH")
	return c
}

func runShimCommand(cfg any, args []string, std stdio) error {
	c := cfg.(*shimConfig)
	if len(args) == 0 {
		return usagef("want install DIR or exec")
	}
	switch args[0] {
	case "install":
		if len(args) != 2 {
			return usagef("want shim install DIR")
		}
		exe, err := os.Executable()
		if err != nil {
			return &exitError{exitUsage, err}
		}
		if c.mode != "" {
			if _, err := shim.ParseMode(c.mode); err != nil {
				return usagef("--mode: %v", err)
			}
		}
		command, err := shimCommand(exe, c)
		if err != nil {
			return &exitError{exitUsage, err}
		}
		p, err := shim.Install(args[1], command)
		if err != nil {
			return &exitError{exitUsage, err}
		}
		abs, _ := filepath.Abs(filepath.Dir(p))
		fmt.Fprintf(std.out, "%s\nput it first on PATH: export PATH=%s:$PATH\n", p, abs)
		return nil
	case "exec":
		self := c.self
		if self == "" {
			self = "codex"
		}
		return shimMain(self, c, args[1:], std)
	}
	return usagef("unknown shim subcommand %q (want install or exec)", args[0])
}

// runAsCodex is codexrec started as codex: an app-server session, on stdio or on a
// socket, is recorded or replayed as the mode says; anything else is the real
// codex's, exec'd with the same arguments.
func runAsCodex(self string, c *shimConfig, args []string, std stdio) error {
	st := dropin.Standin{Mode: c.mode, Dir: c.dir, File: c.file, Codex: c.real}
	real, realErr := st.Real(self)
	listen := shim.SocketListen(args)
	if !shim.IsSession(args) && listen == "" {
		if realErr != nil {
			return &exitError{exitUsage, realErr}
		}
		return &exitError{exitUsage, shim.Exec(real, args)}
	}
	mode, err := st.ParseMode()
	if err != nil {
		return &exitError{exitUsage, fmt.Errorf("CODEXREC_MODE: %w", err)}
	}
	rec, rep := defaultRecordConfig(), defaultReplayConfig()
	// A shim has no command line of its own: record's and replay's flags come from
	// the environment.
	for _, f := range []struct {
		env   string
		args  []string
		flags func(*flag.FlagSet) any
		cfg   any
	}{{dropin.RecordFlagsEnv, st.RecordArgs(), recordFlags, &rec}, {dropin.ReplayFlagsEnv, st.ReplayArgs(), replayFlags, &rep}} {
		if len(f.args) == 0 {
			continue
		}
		fs := flag.NewFlagSet(f.env, flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		cfg := f.flags(fs)
		if err := fs.Parse(f.args); err != nil || fs.NArg() > 0 {
			if err == nil {
				err = fmt.Errorf("unexpected %q", fs.Arg(0))
			}
			return &exitError{exitUsage, fmt.Errorf("%s: %v", f.env, err)}
		}
		switch p := f.cfg.(type) {
		case **recordConfig:
			*p = cfg.(*recordConfig)
		case **replayConfig:
			*p = cfg.(*replayConfig)
		}
	}
	var command []string
	if realErr == nil {
		command = append([]string{real}, args...)
	}
	if listen != "" {
		rec.socket = socketFlags{listen: listen, banner: true}
		rep.listen, rep.banner = listen, true
	}
	s, err := modeSession(mode, command, rec, rep, true, std)
	if err != nil {
		return err
	}
	s.CommandErr = realErr
	if err := st.Target(s); errors.Is(err, dropin.ErrNoDir) {
		return &exitError{exitUsage, errors.New("CODEXREC_DIR is not set: where do the recordings go? (or CODEXREC_MODE=passthrough)")}
	}
	if listen != "" {
		return runnerError(s.RunSocket(listen))
	}
	return runnerError(s.Run(std.in))
}

// shimMain is codexrec started as codex, by the script or a symlink: the session,
// its report (--report, else CODEXREC_LOG) and its errors said as codex's.
func shimMain(self string, c *shimConfig, args []string, std stdio) error {
	if err := loadConfig(""); err != nil {
		return asCodex(err, std)
	}
	run := func() error { return runAsCodex(self, c, args, std) }
	report := dropin.Standin{Report: c.report}.ReportFile()
	if report == "" || !shim.IsSession(args) && shim.SocketListen(args) == "" {
		return asCodex(run(), std)
	}
	return asCodex(reported(report, run), std)
}

// asCodex prints err as codexrec standing in for codex (not as the shim command the
// script runs) and returns its exit status alone.
func asCodex(err error, std stdio) error {
	if err == nil {
		return nil
	}
	code := exitUsage
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err == nil {
			return ee
		}
		code, err = ee.code, ee.err
	}
	fmt.Fprintf(std.err, "codexrec (as codex): %s\n", sanitize.MaskText(err.Error()))
	return &exitError{code: code}
}

// reported runs a session with a report file: what the replay says on stderr goes
// there too (sessionReport), and so does a failed session's error with its exit
// status.
func reported(path string, run func() error) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return &exitError{exitUsage, err}
	}
	defer f.Close()
	sessionReport = f
	err = run()
	if err != nil {
		var ee *exitError
		code := exitUsage
		if errors.As(err, &ee) {
			code = ee.code
		}
		fmt.Fprintf(f, "codexrec (as codex): exit %d: %v\n", code, err)
	}
	return err
}

// sessionReport, when set, receives the replay's diagnostics besides stderr.
var sessionReport io.Writer

func firstSet(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// shimName reports whether argv0 is the name codexrec answers as the shim.
func shimName(argv0 string) bool {
	b := filepath.Base(argv0)
	return b == "codex" || b == "codex.exe"
}

// shimCommand is the command line the installed script runs: codexrec's shim exec
// with the settings the script fixes (paths made absolute), then "--" and codex's
// arguments.
func shimCommand(exe string, c *shimConfig) ([]string, error) {
	abs, err := filepath.Abs(exe)
	if err != nil {
		return nil, err
	}
	command := []string{abs, "shim", "exec", "--self", shim.Self}
	for _, f := range []struct{ flag, v string }{{"--mode", c.mode}, {"--dir", c.dir}, {"--file", c.file}, {"--codex", c.real}, {"--report", c.report}} {
		if f.v == "" {
			continue
		}
		v := f.v
		if f.flag != "--mode" {
			if v, err = filepath.Abs(v); err != nil {
				return nil, err
			}
		}
		command = append(command, f.flag, v)
	}
	return append(command, "--"), nil
}
