package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/stale"
)

// staleFlags are the staleness flags of replay (and, through CODEXREC_REPLAY_FLAGS,
// of the shim) and of check --stale; their defaults come from the environment.
// codex is the real codex a session would record with, for --min-codex installed;
// empty: codex on PATH.
type staleFlags struct {
	stale.Settings
	codex string
}

func (s *staleFlags) register(fs *flag.FlagSet, withAction bool) {
	s.Installed = func() (string, error) { return codexbin.Version(context.Background(), s.codex) }
	fs.StringVar(&s.MaxAge, "max-age", os.Getenv("CODEXREC_MAX_AGE"), "a recording made longer ago than `DURATION` (720h, 30d) is stale (default $CODEXREC_MAX_AGE; docs/staleness.md)")
	fs.StringVar(&s.MinCodex, "min-codex", os.Getenv("CODEXREC_MIN_CODEX"), "a recording made by a Codex older than `VERSION` (or \"installed\": the codex on PATH) is stale (default $CODEXREC_MIN_CODEX)")
	if withAction {
		fs.StringVar(&s.Action, "stale", cmp.Or(os.Getenv("CODEXREC_STALE"), "warn"), "what a stale recording does: `warn`, fail (exit 1) or rerecord (record it afresh with -- COMMAND or the shim's codex; never when CI is set)")
	}
}

// staleError says a stale setting's error as its flag; a refused recording exits 1.
// It is nil for an error that is not staleness's.
func staleError(err error) error {
	var le *stale.LimitError
	var re *stale.RefusedError
	switch {
	case errors.As(err, &le) && le.Limit == "max_age":
		return cli.Usagef("--max-age %q: %v", le.Value, le.Err)
	case errors.As(err, &le):
		return cli.ExitWith(exitUsage, fmt.Errorf("--min-codex installed: %w", le.Err))
	case errors.Is(err, stale.ErrAction):
		return cli.Usagef("--stale %v", err)
	case errors.As(err, &re):
		return cli.ExitWith(exitFindings, err)
	case errors.Is(err, stale.ErrNoLimit):
		return cli.Usagef("--stale: want --max-age or --min-codex (or CODEXREC_MAX_AGE, CODEXREC_MIN_CODEX)")
	}
	return nil
}

// runStaleCheck is check --stale: each stale recording under the arguments, one
// line each; exit 1 when there is one.
func runStaleCheck(s *staleFlags, args []string, std cli.IO) error {
	if len(args) == 0 {
		return cli.Usagef("--stale: want a directory or recordings")
	}
	l, err := s.List(std.Out, std.Log, args)
	if err != nil {
		return cmp.Or(staleError(err), cli.Usagef("%v", err))
	}
	return verdict(nil, l.Unread != nil, l.Stale > 0)
}
