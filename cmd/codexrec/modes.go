package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/codexrec/codexrec/dropin"
	"github.com/codexrec/codexrec/shim"
	"github.com/codexrec/codexrec/wsproxy"
)

// modeSession is a drop-in session (dropin.Session) whose recorder is record's
// with the settings rec and whose replayer is replay's with rep; replace says that
// a record replaces an existing recording (mode record chosen, or --force).
func modeSession(mode shim.Mode, command []string, rec *recordConfig, rep *replayConfig, replace bool, std stdio) *dropin.Session {
	s := &dropin.Session{Mode: mode, Command: command}
	note := func() io.Writer {
		if sessionReport != nil {
			return io.MultiWriter(std.err, sessionReport)
		}
		return std.err
	}
	s.Decided = func(m shim.Mode, a shim.Action, path string) {
		fmt.Fprintf(note(), "codexrec: mode %s: %s %s\n", m, a, path)
	}
	s.Override = func(path string, a shim.Action) shim.Action {
		a, fresh := rerecordStale(rep, s.Command, path, a, note())
		replace = replace || fresh
		return a
	}
	s.Record = func(path string, in io.Reader) error {
		return recordSession(rec, path, replace || rec.force, s.Command, in, std)
	}
	s.Replay = func(path string, in io.Reader) error {
		std.err = note()
		return replaySession(rep, path, in, std)
	}
	s.Extend = func(path string, in io.Reader) error {
		std.err = note()
		return extendSession(rec, rep, s.Command, path, in, std)
	}
	s.RecordSocket = func(dir string) error {
		rec.out = dir
		return runRecordSocket(rec, wsproxy.WithoutListen(s.Command), std)
	}
	s.ReplaySocket = func(dir string) error {
		std.err = note()
		return replaySession(rep, dir, nil, std)
	}
	s.Replaced = func(dir string, n int) {
		fmt.Fprintf(std.err, "codexrec: %s replaced by %d new recording(s)\n", dir, n)
	}
	return s
}

// modeError is a drop-in session's error with its exit status: the runners' own,
// anything else (a recording missing, naming, no command) usage or I/O.
func modeError(err error) error {
	var ee *exitError
	if err == nil || errors.As(err, &ee) {
		return err
	}
	if errors.Is(err, dropin.ErrSocketFile) {
		err = fmt.Errorf("%w: set CODEXREC_DIR instead", err)
	}
	return &exitError{exitUsage, err}
}

// defaultRecordConfig is record's flags at their defaults.
func defaultRecordConfig() *recordConfig {
	return recordFlags(flag.NewFlagSet("record", flag.ContinueOnError)).(*recordConfig)
}
