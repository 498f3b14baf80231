package stale

import (
	"errors"
	"fmt"
	"io"
)

// Settings are the limits and the action as a user writes them, with the way to
// learn the installed Codex's version. The zero value finds nothing stale and warns.
type Settings struct {
	Limits
	// Action is what a stale recording about to be replayed does (ParseAction).
	Action string
	// Installed returns the installed Codex's version, for MinCodex "installed";
	// nil refuses that value.
	Installed func() (string, error)
}

// Policy parses the limits (a *LimitError) and the action (an error wrapping
// ErrAction).
func (s Settings) Policy() (Policy, Action, error) {
	p, err := s.Limits.Policy(s.Installed)
	if err != nil {
		return p, "", err
	}
	a, err := ParseAction(s.Action)
	return p, a, err
}

// BeforeReplay applies the settings to the recording at path about to be replayed
// (Action.BeforeReplay): a stale recording under Warn is returned for the caller to
// warn of, refused (*RefusedError) under Fail and Rerecord. Without a limit it
// reads nothing and finds nothing; settings that do not parse are Policy's error.
func (s Settings) BeforeReplay(path string, ci bool) (Result, error) {
	if !s.Active() {
		return Result{}, nil
	}
	p, a, err := s.Policy()
	if err != nil {
		return Result{}, err
	}
	return a.BeforeReplay(path, p, ci)
}

// Rerecords reports whether the recording at path is to be recorded afresh instead
// of replayed (Action.Rerecords): the action is Rerecord, a command can record it,
// CI is not set and it is stale. Settings that do not parse record nothing afresh
// (the replay reports them); the installed Codex is asked only when it would.
func (s Settings) Rerecords(path string, canRecord, ci bool) (Result, bool) {
	if Action(s.Action) != Rerecord || !canRecord || ci {
		return Result{}, false
	}
	p, a, err := s.Policy()
	if err != nil {
		return Result{}, false
	}
	return a.Rerecords(path, p, canRecord, ci)
}

// ErrNoLimit is List's error when the settings set no limit.
var ErrNoLimit = errors.New("no limit set")

// A Listing is what List found.
type Listing struct {
	Stale, Total int // recordings found stale, and read
	// Unread joins the errors of the paths that could not be read (each said on
	// List's log); the others were still checked.
	Unread error
}

// List applies the settings' limits to the recordings under paths (Paths) and
// writes each stale one to out, one line each (Result.String); log (nil: nowhere)
// receives, one line each, the paths that could not be read, then how many of the
// recordings are stale. Its error is ErrNoLimit, Policy's, or out's.
func (s Settings) List(out, log io.Writer, paths []string) (Listing, error) {
	var l Listing
	if !s.Active() {
		return l, ErrNoLimit
	}
	p, _, err := s.Policy()
	if err != nil {
		return l, err
	}
	if log == nil {
		log = io.Discard
	}
	results, errs := Paths(paths, p)
	for _, err := range errs {
		fmt.Fprintln(log, err)
	}
	for _, r := range results {
		if r.Stale() {
			if _, err := fmt.Fprintln(out, r); err != nil {
				return l, err
			}
		}
	}
	l.Stale, l.Total, l.Unread = Count(results), len(results), errors.Join(errs...)
	fmt.Fprintf(log, "%d of %d recording(s) stale\n", l.Stale, l.Total)
	return l, nil
}
