package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os/signal"
	"syscall"
	"time"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/replay"
)

func init() {
	register(&command{
		name:    "replay",
		args:    "[flags] FILE",
		summary: "serve a recording on stdin/stdout in place of codex app-server (a fake server for tests)",
		flags:   replayFlags,
		run:     runReplay,
	})
}

type replayConfig struct {
	match       string
	unordered   bool
	speed       float64
	segment     int
	failFast    bool
	allowUnused bool
	stderr      bool
	patience    time.Duration
	faults      multiFlag
}

func replayFlags(fs *flag.FlagSet) any {
	c := &replayConfig{}
	fs.StringVar(&c.match, "match", "params", "`MODE` of matching client messages: strict, params (normalised) or method")
	fs.BoolVar(&c.unordered, "unordered", false, "let requests of different threads arrive in another order than recorded")
	fs.Float64Var(&c.speed, "speed", 0, "0 answers as fast as possible, 1 keeps the recorded gaps, 2 halves them")
	fs.IntVar(&c.segment, "segment", 1, "serve server lifetime `N` of a recording with restarts")
	fs.BoolVar(&c.failFast, "fail-fast", false, "exit at the first client message that matches nothing")
	fs.BoolVar(&c.allowUnused, "allow-unused", false, "do not fail when the client ends before sending every recorded message")
	fs.BoolVar(&c.stderr, "stderr", false, "replay the server's recorded stderr lines on stderr")
	fs.DurationVar(&c.patience, "patience", replay.DefaultPatience, "send a server frame recorded after a client message the client has not sent once the client was silent this `long` (0: never; see docs/replay.md)")
	fs.Var(&c.faults, "fault", "inject a fault `RULE`, KIND[:METHOD[#N]][=VALUE] (repeatable; see docs/replay.md), KIND one of\ndelay, drop, duplicate, reorder, eof, completed-early, overloaded, garbage")
	return c
}

func runReplay(cfg any, args []string, std stdio) error {
	c := cfg.(*replayConfig)
	if len(args) != 1 {
		return usagef("want exactly one recording")
	}
	mode, err := replay.ParseMode(c.match)
	if err != nil {
		return usagef("--match: %v", err)
	}
	if c.speed < 0 {
		return usagef("--speed %v: want 0 or more", c.speed)
	}
	if c.segment < 1 {
		return usagef("--segment %d: segments are numbered from 1", c.segment)
	}
	if c.patience < 0 {
		return usagef("--patience %v: want 0 (never) or more", c.patience)
	}
	patience := c.patience
	if patience == 0 {
		patience = -1 // the package's zero is its default
	}
	srv := &replay.Server{Mode: mode, Unordered: c.unordered, Speed: c.speed, FailFast: c.failFast,
		AllowUnused: c.allowUnused, Patience: patience, Log: std.err}
	for _, f := range c.faults {
		fault, err := replay.ParseFault(f)
		if err != nil {
			return usagef("--fault: %v", err)
		}
		srv.Faults = append(srv.Faults, fault)
	}
	if c.stderr {
		srv.Stderr = std.err
	}
	srv.Script, err = replay.LoadFile(args[0], c.segment)
	if err != nil {
		return &exitError{exitUsage, err}
	}
	if w := recorder.Warning(args[0], srv.Script.Problems); w != "" {
		fmt.Fprintf(std.err, "codexrec replay: %s\n", w)
	}
	// A client that hangs up or is interrupted ends the replay like its stdin closing
	// would; a write to a client that went away becomes an error, not a crash.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	signal.Ignore(syscall.SIGPIPE)
	defer signal.Reset(syscall.SIGPIPE)
	// stdout is an *os.File, an io.Closer: an eof fault closes it, as a crash would.
	err = srv.Serve(ctx, std.in, std.out)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, replay.ErrNoMatch) || errors.Is(err, replay.ErrUnused):
		return &exitError{exitFindings, err}
	}
	return &exitError{exitUsage, err}
}
