package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

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
	var p stale.Policy
	if s.maxAge != "" {
		d, err := parseAge(s.maxAge)
		if err != nil {
			return p, usagef("--max-age %q: %v", s.maxAge, err)
		}
		p.MaxAge = d
	}
	p.MinCodex = s.minCodex
	if s.minCodex == "installed" {
		v, err := installedCodex(s.codex)
		if err != nil {
			return p, &exitError{exitUsage, fmt.Errorf("--min-codex installed: %w", err)}
		}
		p.MinCodex = v
	}
	if err := p.Validate(); err != nil {
		return p, usagef("%v", err)
	}
	switch s.action {
	case "", "warn", "fail", "rerecord":
	default:
		return p, usagef("--stale %q: want warn, fail or rerecord", s.action)
	}
	return p, nil
}

// parseAge is time.ParseDuration with days ("30d") too.
func parseAge(v string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(v, "d"); ok {
		d, err := time.ParseDuration(n + "h")
		return d * 24, err
	}
	return time.ParseDuration(v)
}

// installedCodex is the version `codex --version` prints ("codex-cli 0.171.0").
func installedCodex(path string) (string, error) {
	if path == "" {
		p, err := exec.LookPath("codex")
		if err != nil {
			return "", err
		}
		path = p
	}
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", path, err)
	}
	f := strings.Fields(string(out))
	if len(f) == 0 {
		return "", fmt.Errorf("%s --version printed nothing", path)
	}
	return f[len(f)-1], nil
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
	r, err := stale.File(path, p)
	if err != nil || !r.Stale() {
		return nil // the replay reports a recording it cannot read
	}
	switch s.action {
	case "fail":
		return &exitError{exitFindings, fmt.Errorf("stale recording %s", r)}
	case "rerecord":
		why := "no command to record it with"
		if shim.IsCI(os.Getenv) {
			why = "recording afresh is refused when CI is set"
		}
		return &exitError{exitFindings, fmt.Errorf("stale recording %s (%s)", r, why)}
	}
	fmt.Fprintf(w, "codexrec replay: warning: stale recording %s\n", r)
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
	if st.action != "rerecord" || shim.IsCI(os.Getenv) {
		return action, false
	}
	p, err := st.policy()
	if err != nil {
		return action, false // replaySession reports it
	}
	r, err := stale.File(path, p)
	if err != nil || !r.Stale() {
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
	var results []stale.Result
	var readErr error
	for _, a := range args {
		var rs []stale.Result
		if fi, statErr := os.Stat(a); statErr == nil && fi.IsDir() {
			rs, err = stale.Dir(a, p)
		} else {
			var r stale.Result
			r, err = stale.File(a, p)
			if err == nil {
				rs = []stale.Result{r}
			}
		}
		if err != nil {
			fmt.Fprintf(std.err, "codexrec check: %v\n", err)
			readErr = err
		}
		results = append(results, rs...)
	}
	n := 0
	for _, r := range results {
		if r.Stale() {
			n++
			fmt.Fprintln(std.out, r)
		}
	}
	fmt.Fprintf(std.err, "codexrec check: %d of %d recording(s) stale\n", n, len(results))
	switch {
	case readErr != nil:
		return &exitError{exitUsage, nil}
	case n > 0:
		return &exitError{exitFindings, nil}
	}
	return nil
}
