package stale

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Limits are a policy as a user writes it. The zero value limits nothing.
type Limits struct {
	// MaxAge is a duration ("720h", or days: "30d"); "" for no limit.
	MaxAge string
	// MinCodex is a version ("0.171.0"), or "installed": the version of the Codex
	// a session would record with, which Policy asks its installed func for.
	MinCodex string
}

// Installed is the MinCodex value that stands for the installed Codex's version.
const Installed = "installed"

// Active reports whether a limit is set.
func (l Limits) Active() bool { return l.MaxAge != "" || l.MinCodex != "" }

// A LimitError is a limit that cannot be applied: Limit is "max_age" or
// "min_codex" (the keys of .codexrec.toml's [stale] table), Value the value given.
type LimitError struct {
	Limit, Value string
	Err          error
}

func (e *LimitError) Error() string { return fmt.Sprintf("%s %q: %v", e.Limit, e.Value, e.Err) }
func (e *LimitError) Unwrap() error { return e.Err }

// Policy parses the limits. installed returns the installed Codex's version; it
// is called only for MinCodex "installed" (nil: that value is refused). A limit
// that does not parse is a *LimitError.
func (l Limits) Policy(installed func() (string, error)) (Policy, error) {
	var p Policy
	if l.MaxAge != "" {
		d, err := ParseAge(l.MaxAge)
		if err != nil {
			return p, &LimitError{"max_age", l.MaxAge, err}
		}
		p.MaxAge = d
	}
	p.MinCodex = l.MinCodex
	if l.MinCodex == Installed {
		if installed == nil {
			return p, &LimitError{"min_codex", l.MinCodex, errors.New("no way to ask the installed Codex")}
		}
		v, err := installed()
		if err != nil {
			return p, &LimitError{"min_codex", l.MinCodex, err}
		}
		p.MinCodex = v
	}
	return p, p.Validate()
}

// ParseAge is time.ParseDuration with days ("30d") too.
func ParseAge(v string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(v, "d"); ok {
		d, err := time.ParseDuration(n + "h")
		return d * 24, err
	}
	return time.ParseDuration(v)
}

// Action is what a stale recording about to be replayed does.
type Action string

// The actions: warn and replay, fail, or record afresh.
const (
	Warn     Action = "warn"
	Fail     Action = "fail"
	Rerecord Action = "rerecord"
)

// ErrAction is wrapped by ParseAction's error.
var ErrAction = errors.New("want warn, fail or rerecord")

// ParseAction parses an action; "" is Warn.
func ParseAction(s string) (Action, error) {
	switch a := Action(s); a {
	case "":
		return Warn, nil
	case Warn, Fail, Rerecord:
		return a, nil
	}
	return "", fmt.Errorf("%q: %w", s, ErrAction)
}

// Paths applies the policy to each path: a directory's recordings (Dir) or one
// recording (File). Results come in argument order; a path that cannot be read
// adds its error to errs and the others are still checked.
func Paths(paths []string, p Policy) (results []Result, errs []error) {
	for _, a := range paths {
		var rs []Result
		var err error
		if fi, statErr := os.Stat(a); statErr == nil && fi.IsDir() {
			rs, err = Dir(a, p)
		} else {
			var r Result
			if r, err = File(a, p); err == nil {
				rs = []Result{r}
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
		results = append(results, rs...)
	}
	return results, errs
}

// Count is the number of stale results.
func Count(results []Result) int {
	n := 0
	for _, r := range results {
		if r.Stale() {
			n++
		}
	}
	return n
}
