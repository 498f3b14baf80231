package dropin

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/codexrec/codexrec/extend"
	"github.com/codexrec/codexrec/record"
)

// Extend is mode extend for a stdio session (extend.Run): the recording at path is
// served with rep's replay settings (its Segment, Server and Log; FailFast does
// not apply, the first message the recording lacks is the handoff) and, once the
// client goes past it, command's session is recorded into it as a new segment
// through o's pipeline (Stages, SkipStderr), on in and rep's Stdout. It has the
// process's SIGINT, SIGTERM and SIGHUP for its duration (extend.Options.Signals).
// The report is the new segment's, when the result says Extended. Errors: a bad
// pipeline setting is a *StagesError; under CI (o.Getenv) one wraps shim.ErrCI; a replay
// that found a mismatch or unused frames wraps replay.ErrNoMatch or
// replay.ErrUnused; once extended, the leak guard's refusal is a
// *sanitize.LeakError.
func (o *RecordOptions) Extend(ctx context.Context, path string, command []string, in io.Reader, rep *ReplayOptions) (extend.Result, record.Report, error) {
	if rep == nil {
		rep = &ReplayOptions{}
	}
	srv := rep.server()
	srv.FailFast = false
	s, err := o.session()
	if err != nil {
		return extend.Result{}, record.Report{}, err
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	res, err := extend.Run(ctx, extend.Options{Path: path, Segment: rep.Segment, Replay: srv, Command: command,
		Record: s, Getenv: o.Getenv, In: in, Out: orStd(rep.Stdout, os.Stdout), Stderr: srv.Log, Log: srv.Log, Signals: sigs})
	return res, s.Report(), err
}
