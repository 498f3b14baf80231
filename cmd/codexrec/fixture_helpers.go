package main

import (
	"context"
	"errors"
	"os/signal"
	"syscall"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
)

// interruptible is a context that SIGINT or SIGTERM cancels.
func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
}

// exitFor is the exit status of an error from the libraries that write
// recordings: a bad sanitizer setting names its flag, a recording in the way says
// whether --force helps, the leak guard's refusal or redaction is exitLeak,
// anything else is usage or I/O.
func exitFor(err error) error {
	var se *sanitize.SettingError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		return settingError(err)
	case errors.Is(err, recorder.ErrExists) || errors.Is(err, recorder.ErrNotReplaceable):
		return createError(err)
	}
	return finishError(err)
}
