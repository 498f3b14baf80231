package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/wsproxy"
	"github.com/codexrec/codexrec/wsreplay"
)

// replaySocket is replay --listen: every connection gets a fresh replay.Server set
// up as proto is, of the next recording, until SIGINT or SIGTERM (or --connections).
// The exit status is 1 when any connection's replay found a mismatch or unused
// frames.
func replaySocket(c *replayConfig, proto *replay.Server, path string, std stdio) error {
	if c.segment != 1 {
		return usagef("--segment: a socket recording holds one connection; --listen serves segment 1")
	}
	if _, err := wsproxy.ParseURL(c.listen); err != nil {
		return usagef("--listen: %v", err)
	}
	if c.memoryMiB < 0 {
		return usagef("--memory-budget: %d MiB: want 0 (the default) or more", c.memoryMiB)
	}
	paths, err := wsreplay.FindRecordings(path)
	if err != nil {
		return &exitError{exitUsage, err}
	}
	for _, p := range paths {
		if err := checkStale(&c.stale, p, std.err); err != nil {
			return err
		}
	}
	srv := &wsreplay.Server{Recordings: paths, Loop: c.loop, Log: prefixed(std.err, "codexrec replay: "), MemoryBudget: c.memoryMiB << 20,
		Configure: func(r *replay.Server) {
			*r = *proto
			r.Faults = append([]replay.Fault(nil), proto.Faults...)
		}}
	if c.banner {
		srv.Ready = func(url string) {
			if strings.HasPrefix(url, "ws://") {
				fmt.Fprint(std.err, wsproxy.Banner(url))
			}
		}
	}
	if c.tokenFile != "" {
		b, err := os.ReadFile(c.tokenFile)
		if err != nil {
			return &exitError{exitUsage, fmt.Errorf("--ws-token-file: %w", err)}
		}
		srv.Token = strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if c.connections > 0 {
		go func() {
			for len(srv.Results()) < c.connections && ctx.Err() == nil {
				time.Sleep(20 * time.Millisecond)
			}
			stop()
		}()
	}
	if err := srv.ListenAndServe(ctx, c.listen, c.urlFile, prefixed(std.err, "codexrec replay: ")); err != nil {
		return &exitError{exitUsage, err}
	}
	var findings error
	for _, r := range srv.Results() {
		switch {
		case r.Err == nil:
		case errors.Is(r.Err, replay.ErrNoMatch) || errors.Is(r.Err, replay.ErrUnused):
			if findings == nil {
				findings = &exitError{exitFindings, fmt.Errorf("connection %d: %w", r.Conn, r.Err)}
			}
		default:
			return &exitError{exitUsage, fmt.Errorf("connection %d: %w", r.Conn, r.Err)}
		}
	}
	return findings
}
