package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/shim"
	"github.com/codexrec/codexrec/stale"
)

// staleFlags are the staleness flags of replay (and, through CODEXREC_REPLAY_FLAGS,
// of the shim) and of check --stale; their defaults come from the environment.
type staleFlags struct {
	maxAge   string
	minCodex string
	action   string
	// codex is the real codex a session would record with, for --min-codex
	// installed; empty: codex on PATH.
	codex string
}

func (s *staleFlags) register(fs *flag.FlagSet, withAction bool) {
	fs.StringVar(&s.maxAge, "max-age", os.Getenv("CODEXREC_MAX_AGE"), "a recording made longer ago than `DURATION` (720h, 30d) is stale (default $CODEXREC_MAX_AGE; docs/staleness.md)")
	fs.StringVar(&s.minCodex, "min-codex", os.Getenv("CODEXREC_MIN_CODEX"), "a recording made by a Codex older than `VERSION` (or \"installed\": the codex on PATH) is stale (default $CODEXREC_MIN_CODEX)")
	if withAction {
		fs.StringVar(&s.action, "stale", firstSet(os.Getenv("CODEXREC_STALE"), "warn"), "what a stale recording does: `warn`, fail (exit 1) or rerecord (record it afresh with -- COMMAND or the shim's codex; never when CI is set)")
	}
}

// policy parses the flags; "installed" runs the real codex for its version.
func (s *staleFlags) policy() (stale.Policy, error) {
	p, err := stale.Limits{MaxAge: s.maxAge, MinCodex: s.minCodex}.Policy(func() (string, error) {
		return codexbin.Version(context.Background(), s.codex)
	})
	var le *stale.LimitError
	switch {
	case errors.As(err, &le) && le.Limit == "max_age":
		return p, usagef("--max-age %q: %v", le.Value, le.Err)
	case errors.As(err, &le):
		return p, &exitError{exitUsage, fmt.Errorf("--min-codex installed: %w", le.Err)}
	case err != nil:
		return p, usagef("%v", err)
	}
	if _, err := stale.ParseAction(s.action); err != nil {
		return p, usagef("--stale %v", err)
	}
	return p, nil
}

// checkStale warns of, or refuses, a stale recording about to be replayed.
func checkStale(s *staleFlags, path string, w io.Writer) error {
	if s.maxAge == "" && s.minCodex == "" {
		return nil
	}
	p, err := s.policy()
	if err != nil {
		return err
	}
	r, err := stale.Action(s.action).BeforeReplay(path, p, shim.IsCI(os.Getenv))
	if err != nil {
		return &exitError{exitFindings, err}
	}
	if r.Stale() {
		fmt.Fprintf(w, "codexrec replay: warning: stale recording %s\n", r)
	}
	return nil
}

// rerecordStale turns a replay of a stale recording into a record when --stale
// rerecord asks for it, a command is known and CI is not set.
func rerecordStale(rep *replayConfig, command []string, path string, action shim.Action, note io.Writer) (shim.Action, bool) {
	st := &rep.stale
	if action != shim.Replay || command == nil {
		return action, false
	}
	st.codex = command[0]
	if stale.Action(st.action) != stale.Rerecord || shim.IsCI(os.Getenv) {
		return action, false
	}
	p, err := st.policy()
	if err != nil {
		return action, false // the replay reports it
	}
	r, ok := stale.Action(st.action).Rerecords(path, p, true, false)
	if !ok {
		return action, false
	}
	fmt.Fprintf(note, "codexrec: stale recording %s: recording it afresh\n", r)
	return shim.Record, true
}

// runStaleCheck is check --stale: each stale recording under the arguments, one
// line each; exit 1 when there is one.
func runStaleCheck(s *staleFlags, args []string, std stdio) error {
	if len(args) == 0 {
		return usagef("--stale: want a directory or recordings")
	}
	if s.maxAge == "" && s.minCodex == "" {
		return usagef("--stale: want --max-age or --min-codex (or CODEXREC_MAX_AGE, CODEXREC_MIN_CODEX)")
	}
	p, err := s.policy()
	if err != nil {
		return err
	}
	results, errs := stale.Paths(args, p)
	for _, err := range errs {
		fmt.Fprintf(std.err, "codexrec check: %v\n", err)
	}
	n := stale.Count(results)
	for _, r := range results {
		if r.Stale() {
			fmt.Fprintln(std.out, r)
		}
	}
	fmt.Fprintf(std.err, "codexrec check: %d of %d recording(s) stale\n", n, len(results))
	switch {
	case len(errs) > 0:
		return &exitError{exitUsage, nil}
	case n > 0:
		return &exitError{exitFindings, nil}
	}
	return nil
}
