package stale

import "fmt"

// RefusedError is a stale recording an action refuses to replay: Fail, or
// Rerecord when it cannot be recorded afresh (Why says so).
type RefusedError struct {
	Result Result
	Why    string
}

func (e *RefusedError) Error() string {
	if e.Why == "" {
		return fmt.Sprintf("stale recording %s", e.Result)
	}
	return fmt.Sprintf("stale recording %s (%s)", e.Result, e.Why)
}

// BeforeReplay applies a to the recording at path about to be replayed: a stale
// recording is refused (*RefusedError) under Fail, and under Rerecord too, since
// one that could be recorded afresh was (Rerecords); under Warn it is returned for
// the caller to warn of. ci says why Rerecord could not record. A recording that
// cannot be read is not stale here: the replay reports it.
func (a Action) BeforeReplay(path string, p Policy, ci bool) (Result, error) {
	r, err := File(path, p)
	if err != nil || !r.Stale() {
		return Result{}, nil
	}
	switch a {
	case Fail:
		return r, &RefusedError{Result: r}
	case Rerecord:
		why := "no command to record it with"
		if ci {
			why = "recording afresh is refused when CI is set"
		}
		return r, &RefusedError{Result: r, Why: why}
	}
	return r, nil
}

// Rerecords reports whether a, given a command to record with (canRecord) and CI
// not set, records the recording at path afresh instead of replaying it: it is
// Rerecord and the recording is stale.
func (a Action) Rerecords(path string, p Policy, canRecord, ci bool) (Result, bool) {
	if a != Rerecord || !canRecord || ci {
		return Result{}, false
	}
	r, err := File(path, p)
	if err != nil || !r.Stale() {
		return Result{}, false
	}
	return r, true
}
