package dropin

import (
	"context"
	"fmt"
	"io"

	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/shim"
)

// SessionOptions are the settings of a drop-in session as codexrec's commands run
// one: the mode, the real app-server, how it is recorded and replayed, and where
// its notes go. Session turns them into a Session with the library's runners. The
// zero value is a session in mode auto with no command, recorded and replayed with
// the zero RecordOptions and ReplayOptions, saying nothing.
//
// A stale recording (Replay.Stale's limits) that a stdio session would replay is
// recorded afresh instead when Replay.Stale's action is stale.Rerecord, there is a
// Command and CI is not set; settings that do not parse leave the replay to report
// them.
type SessionOptions struct {
	Mode       shim.Mode
	Command    []string // the real app-server to run; nil when there is none
	CommandErr error    // why Command is nil
	// Record and Replay are the runners' settings (nil: the zero values). Record is
	// copied per session, so Record.Force is never changed.
	Record *RecordOptions
	Replay *ReplayOptions
	// Replace lets a record replace an existing recording (a mode that records was
	// chosen), as Record.Force does.
	Replace bool
	// Plain runs the runner of Mode record or replay on a file target itself, with
	// no decision to make or note of it (Run): a record that replaces nothing
	// unless Record.Force, a replay of a recording that must be there.
	Plain bool
	// Extended, when set, is given the report of the segment a session in mode
	// extend recorded; its error, when the session otherwise succeeded, is the
	// session's.
	Extended func(r record.Report) error
	// Log receives the session's notes, one line each: what the mode decided, a
	// stale recording recorded afresh, a recording extended, a socket directory
	// replaced; nil discards them.
	Log io.Writer
	// Getenv reads CI and the naming variables (nil: os.Getenv).
	Getenv func(string) string
}

// Session is the drop-in session the settings describe, on ctx; set its target
// (SetTarget) and Run or RunSocket it.
func (o *SessionOptions) Session(ctx context.Context) *Session {
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	rec, rep := &RecordOptions{}, o.Replay
	if o.Record != nil {
		*rec = *o.Record
	}
	if rep == nil {
		rep = &ReplayOptions{}
	}
	rec.Force = rec.Force || o.Replace
	if rec.Getenv == nil {
		rec.Getenv = o.Getenv
	}
	if rep.Getenv == nil && o.Getenv != nil {
		r := *rep
		r.Getenv, rep = o.Getenv, &r
	}
	s := &Session{Mode: o.Mode, Command: o.Command, CommandErr: o.CommandErr, Getenv: o.Getenv}
	s.Decided = func(md shim.Mode, a shim.Action, path string) { fmt.Fprintf(log, "mode %s: %s %s\n", md, a, path) }
	s.Replaced = func(dir string, n int) { fmt.Fprintf(log, "%s replaced by %d new recording(s)\n", dir, n) }
	s.Override = func(path string, a shim.Action) shim.Action {
		if !rerecords(s, rep, path, a, log) {
			return a
		}
		rec.Force = true
		return shim.Record
	}
	s.Extend = func(path string, in io.Reader) error {
		res, r, err := rec.Extend(ctx, path, s.Command, in, rep)
		if err != nil || !res.Extended {
			return err
		}
		fmt.Fprintf(log, "extended %s with segment %d\n", path, res.Segment)
		if o.Extended != nil {
			if err := o.Extended(r); err != nil {
				return err
			}
		}
		if c := res.Server.ExitCode; c != 0 {
			return &ExitError{Code: c}
		}
		return nil
	}
	s.UseRunners(ctx, rec, rep)
	return s
}

// rerecords reports whether the replay a of the recording at path is to record it
// afresh instead, as stale (rep.Stale), and says so on log.
func rerecords(s *Session, rep *ReplayOptions, path string, a shim.Action, log io.Writer) bool {
	if a != shim.Replay || rep.Stale == nil {
		return false
	}
	r, ok := rep.Stale.Rerecords(path, s.Command != nil, shim.IsCI(s.getenv))
	if ok {
		fmt.Fprintf(log, "stale recording %s: recording it afresh\n", r)
	}
	return ok
}

// Run runs what the settings ask of target: when Record listens on a socket
// (RecordOptions.Socket), RecordSocket of Command into the directory target; when
// Replay does (its Listen), ReplaySocket of target; under Plain, the runner Mode
// names on a file target; otherwise the session on stdio with the client on in,
// its recording target (a file, or a directory of named recordings when it ends in
// a separator: SetTarget), as Mode decides.
func (o *SessionOptions) Run(ctx context.Context, target string, in io.Reader) error {
	rec, rep := o.Record, o.Replay
	if rec == nil {
		rec = &RecordOptions{}
	}
	if rep == nil {
		rep = &ReplayOptions{}
	}
	plain := o.Plain && !IsDirTarget(target)
	switch {
	case rec.Socket():
		return rec.RecordSocket(ctx, target, o.Command)
	case rep.Listen != "":
		return rep.ReplaySocket(ctx, target)
	case plain && o.Mode == shim.ModeRecord:
		return rec.Record(ctx, target, o.Command, in)
	case plain && o.Mode == shim.ModeReplay:
		return rep.Replay(ctx, target, in)
	}
	s := o.Session(ctx)
	s.SetTarget(target)
	return s.Run(in)
}
