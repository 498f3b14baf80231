package record

import (
	"errors"
	"fmt"
	"os"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
)

// RecoverOptions are the settings of Recover. The zero value publishes without
// replacing an existing recording and without the leak guard.
type RecoverOptions struct {
	Force bool // replace an existing recording at the target
	// Guard, when set, scans the completed file before it is published: findings
	// are redacted in place and the recording published; only what it cannot
	// redact keeps the recording from being published.
	Guard *sanitize.Sanitizer
}

// ErrNotInProgress is Recover's refusal of a temporary file not named like a
// recording in progress (.NAME.*.tmp) when no target is given.
var ErrNotInProgress = errors.New("not named like a recording in progress (.NAME.*.tmp)")

// Recover completes and publishes the recording a killed recorder left in the
// temporary file tmp at target (recorder.Recover) behind the leak guard. A tmp that
// does not exist is an fs.ErrNotExist error; an empty target is the name the
// recording was started for (recorder.TargetOf), or an error wrapping
// ErrNotInProgress when tmp is not named like one. It returns where the recording
// is and its trailer (nil when it had already been published). A recording the
// guard could not clean stays at tmp (*sanitize.LeakError); one it redacted is
// published and reported as a *sanitize.RedactedError.
func Recover(tmp, target string, o RecoverOptions) (string, *recorder.Trailer, error) {
	if _, err := os.Lstat(tmp); err != nil {
		return "", nil, err
	}
	if target == "" {
		if target = recorder.TargetOf(tmp); target == "" {
			return "", nil, fmt.Errorf("%s is %w", tmp, ErrNotInProgress)
		}
	}
	var opt recorder.RecoverOptions
	var redacted []sanitize.Leak
	opt.Force = o.Force
	if o.Guard != nil {
		opt.BeforePublish = func(p string) error {
			r, err := o.Guard.GuardRedact(p)
			redacted = r
			if le, ok := err.(*sanitize.LeakError); ok {
				le.File = p
			}
			return err
		}
	}
	where, t, err := recorder.Recover(tmp, target, opt)
	var le *sanitize.LeakError
	switch {
	case errors.As(err, &le):
		return where, t, fmt.Errorf("%w (the recording stays at %s)", le, tmp)
	case err != nil:
		return where, t, err
	case t != nil && len(redacted) > 0:
		return where, t, &sanitize.RedactedError{File: where, Leaks: redacted}
	}
	return where, t, nil
}
