package record

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"

	"github.com/codexrec/codexrec/proxy"
	"github.com/codexrec/codexrec/recorder"
)

// Result says how a recorded session ended.
type Result struct {
	proxy.Result
	// Trailer is the recording's last line as written.
	Trailer recorder.Trailer
}

// ErrUndelivered wraps the error writing to the client (it stopped reading): the
// server was still drained and every frame recorded, those the client never got
// marked undelivered, and the trailer says which was the last one delivered.
var ErrUndelivered = errors.New("writing to the client failed")

// MaxLag bounds the bytes the recording may wait for the leak guard, and MaxQueued
// the memory of the reads waiting for the stages (Proxy.MaxQueued, unless set: a
// turn's reads fit, so forwarding a turn never waits for the stages). Past them
// forwarding slows down to the pipeline's pace, so the session ends soon after the
// server does.
const (
	MaxLag    = 256 << 10
	MaxQueued = 1 << 20
)

// ErrTap wraps the first error of the recording pipeline during a session (a write
// error, a tap's error): forwarding went on, the recording stopped there.
var ErrTap = errors.New("recording failed, forwarding went on")

// Run starts cmd (Stdin, Stdout and Stderr nil) behind p, forwards between it and
// the client, records every frame in s and finishes the session (trailer, leak
// guard, publish). p carries the proxy's settings (QueueSize, Signals) and may be
// nil; its Tap is the session. The error is the first of: Finish failed
// (a *sanitize.LeakError when the guard refused), the server could not be started
// (wrapping proxy.ErrStart; the recording says so, or is not kept with
// DiscardFailedStart), the pipeline failed (ErrTap),
// the client stopped reading (ErrUndelivered). The server's own exit status is in
// the Result. Once ctx is done the child gets SIGTERM, as from p.Signals, and the
// session ends as the child does.
func (s *Session) Run(ctx context.Context, p *proxy.Proxy, cmd *exec.Cmd, client io.Reader, clientOut, errOut io.Writer) (Result, error) {
	p = s.bind(p)
	res, runErr := p.Run(ctx, cmd, client, clientOut, errOut)
	s.settle(&res)
	t := recorder.Trailer{ExitCode: res.ExitCode, Signal: res.KilledBy}
	switch {
	case runErr != nil:
		t.Ended, t.Error, t.ExitCode = recorder.EndStartFailed, runErr.Error(), -1
	case res.Signal != nil:
		t.Ended, t.Signal = recorder.EndSignal, proxy.SignalName(res.Signal)
	case res.ClientEOF:
		t.Ended = recorder.EndClientEOF
	default:
		t.Ended = recorder.EndChildExit
	}
	if runErr != nil && s.DiscardFailedStart && s.Writer != nil {
		s.Writer.Abort()
		return Result{Result: res}, runErr
	}
	var exitErr error
	if runErr == nil && s.Writer != nil {
		exitErr = s.Writer.WriteEntry(recorder.Entry{Type: recorder.TypeExit, Time: s.Writer.Since(), Segment: max(1, s.Segment),
			ExitCode: res.ExitCode, Signal: res.KilledBy})
	}
	return s.end(res, t, runErr, exitErr)
}

// Serve is Run for a server reached through streams (proxy.Server): an in-process
// server, or a transport other than a child's stdio.
func (s *Session) Serve(p *proxy.Proxy, srv proxy.Server, client io.Reader, clientOut io.Writer) (Result, error) {
	p = s.bind(p)
	res := p.Serve(srv, client, clientOut)
	s.settle(&res)
	t := recorder.Trailer{Ended: recorder.EndChildExit}
	if res.ClientEOF {
		t.Ended = recorder.EndClientEOF
	}
	return s.end(res, t, nil, nil)
}

func (s *Session) bind(p *proxy.Proxy) *proxy.Proxy {
	if p == nil {
		p = &proxy.Proxy{}
	}
	p.Tap = s
	if s.Writer != nil && (s.Sanitizer != nil || s.check != nil) && s.stage == nil {
		// Sanitizing (or the guard's detectors, without a sanitizer): they run on a
		// goroutine of its own, at the pumps' priority, beside the tap's
		// (validation, when on, runs on the tap's).
		s.stage = startStage(s)
	}
	// Nothing in the pipeline keeps a frame past the call (validation copies the
	// frames it holds until the Codex version is known).
	p.ReuseLines = true
	if p.MaxQueued == 0 {
		// What waits for the pipeline when the server exits is what the session has
		// left to do then: little, so that the process exits soon after the server.
		p.MaxQueued = MaxQueued
	}
	return p
}

// settle waits for the stage (if any) to write every frame handed over and stops
// it; its error, unless the proxy has one already, is the tap's.
func (s *Session) settle(res *proxy.Result) {
	if s.stage == nil {
		return
	}
	err := s.stage.stop()
	s.stage = nil
	if err != nil && res.TapErr == nil {
		res.TapErr = err
	}
}

func (s *Session) end(res proxy.Result, t recorder.Trailer, runErr, exitErr error) (Result, error) {
	tapErr := res.TapErr
	if tapErr == nil {
		tapErr = exitErr
	}
	if tapErr != nil {
		t.Ended, t.Error = recorder.EndError, tapErr.Error()
	}
	if res.ClientErr != nil {
		t.ClientError, t.LastDelivered = res.ClientErr.Error(), res.LastDelivered
	}
	t, finErr := s.Finish(t)
	out := Result{Result: res, Trailer: t}
	switch {
	case finErr != nil:
		return out, finErr
	case runErr != nil:
		return out, runErr
	case tapErr != nil:
		return out, fmt.Errorf("%w: %w", ErrTap, tapErr)
	case res.ClientErr != nil:
		where := "the recording"
		if s.Writer != nil {
			where = s.Writer.PublishedPath()
		}
		return out, fmt.Errorf("%w: %w; %d frame(s) after seq %d were recorded but not delivered (marked undelivered in %s)",
			ErrUndelivered, res.ClientErr, res.Undelivered, res.LastDelivered, where)
	}
	return out, nil
}
