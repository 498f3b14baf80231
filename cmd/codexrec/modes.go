package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/codexrec/codexrec/dropin"
	"github.com/codexrec/codexrec/shim"
)

// modeSession is a drop-in session (dropin.Session) recorded with record's
// settings rec and replayed with replay's rep; replace says that a record replaces
// an existing recording (mode record chosen, or --force).
func modeSession(mode shim.Mode, command []string, rec *recordConfig, rep *replayConfig, replace bool, std stdio) (*dropin.Session, error) {
	note := std.err
	if sessionReport != nil {
		note = io.MultiWriter(std.err, sessionReport)
	}
	ro, err := rec.options(std)
	if err != nil {
		return nil, err
	}
	ro.Force = replace || rec.force
	rstd := std
	rstd.err = note
	po, err := rep.options(rstd)
	if err != nil {
		return nil, err
	}
	s := &dropin.Session{Mode: mode, Command: command}
	s.Decided = func(m shim.Mode, a shim.Action, path string) {
		fmt.Fprintf(note, "codexrec: mode %s: %s %s\n", m, a, path)
	}
	s.Override = func(path string, a shim.Action) shim.Action {
		a, fresh := rerecordStale(rep, s.Command, path, a, note)
		ro.Force = ro.Force || fresh
		return a
	}
	s.Extend = func(path string, in io.Reader) error {
		estd := std
		estd.err = note
		return extendSession(rec, rep, s.Command, path, in, estd)
	}
	s.Replaced = func(dir string, n int) {
		fmt.Fprintf(std.err, "codexrec: %s replaced by %d new recording(s)\n", dir, n)
	}
	s.UseRunners(context.Background(), ro, po)
	return s, nil
}

// defaultRecordConfig is record's flags at their defaults.
func defaultRecordConfig() *recordConfig {
	return recordFlags(flag.NewFlagSet("record", flag.ContinueOnError)).(*recordConfig)
}

// defaultReplayConfig is replay's flags at their defaults.
func defaultReplayConfig() *replayConfig {
	return replayFlags(flag.NewFlagSet("replay", flag.ContinueOnError)).(*replayConfig)
}
