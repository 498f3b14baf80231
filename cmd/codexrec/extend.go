package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/codexrec/codexrec/extend"
	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/shim"
)

// extendSession is mode extend for a stdio session (dropin.Session.Extend): the
// replay's flags, record's pipeline, extend.Run.
func extendSession(rec *recordConfig, rep *replayConfig, command []string, path string, in io.Reader, std stdio) error {
	if rep.segment < 1 {
		return usagef("--segment %d: segments are numbered from 1", rep.segment)
	}
	srv := &replay.Server{Unordered: rep.unordered, Strict: rep.strict, AllowUnused: rep.allowUnused, Log: std.err,
		OptionName: replayFlagOf, NoRepeats: rep.noRepeats, Idempotent: rep.idempotent, Paths: replay.Paths{Cwd: rep.cwd}}
	err := replay.Settings{Match: rep.match, Ignore: rep.ignore, MatchOnly: rep.matchOnly, Faults: rep.faults,
		Speed: rep.speed, Patience: rep.patience}.Apply(srv)
	if err != nil {
		return usagef("--%v", err)
	}
	if rep.stderr {
		srv.Stderr = std.err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	s, err := rec.stages.session(cwd, nil)
	if err != nil {
		return err
	}
	s.SkipStderr = rec.noStderr
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	res, err := extend.Run(context.Background(), extend.Options{Path: path, Segment: rep.segment, Replay: srv,
		Command: command, Record: s, In: in, Out: std.out, Stderr: std.err, Log: std.err, Signals: sigs})
	switch {
	case errors.Is(err, shim.ErrCI):
		return &exitError{exitUsage, err}
	case errors.Is(err, replay.ErrNoMatch) || errors.Is(err, replay.ErrUnused):
		return &exitError{exitFindings, err}
	case err != nil && res.Extended:
		return finishError(err)
	case err != nil:
		return &exitError{exitUsage, err}
	}
	if res.Extended {
		fmt.Fprintf(std.err, "codexrec: extended %s with segment %d\n", path, res.Segment)
		if reportErr := rec.stages.report(std.err, "replay", s.Report()); reportErr != nil {
			return reportErr
		}
		if c := res.Server.ExitCode; c != 0 {
			return &exitError{code: c}
		}
	}
	return nil
}
