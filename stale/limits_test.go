package stale_test

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/codexrec/codexrec/stale"
)

func TestLimitsPolicy(t *testing.T) {
	installed := func() (string, error) { return "0.171.0", nil }
	p, err := stale.Limits{MaxAge: "30d", MinCodex: stale.Installed}.Policy(installed)
	if err != nil || p.MaxAge != 30*24*time.Hour || p.MinCodex != "0.171.0" {
		t.Fatalf("Policy = %+v, %v; want 720h and the installed 0.171.0", p, err)
	}
	for _, tc := range []struct {
		l     stale.Limits
		limit string // the LimitError's, "" for another error
	}{
		{stale.Limits{MaxAge: "a month"}, "max_age"},
		{stale.Limits{MinCodex: stale.Installed}, "min_codex"}, // no installed func
		{stale.Limits{MinCodex: "latest"}, ""},
		{stale.Limits{MaxAge: "-1h"}, ""},
	} {
		_, err := tc.l.Policy(nil)
		var le *stale.LimitError
		if err == nil || errors.As(err, &le) != (tc.limit != "") || (le != nil && le.Limit != tc.limit) {
			t.Errorf("%+v: error %v; want a LimitError for %q", tc.l, err, tc.limit)
		}
	}
	boom := errors.New("no codex")
	_, err = stale.Limits{MinCodex: stale.Installed}.Policy(func() (string, error) { return "", boom })
	if !errors.Is(err, boom) {
		t.Errorf("installed failing: %v; want it wrapped", err)
	}
}

func TestParseAction(t *testing.T) {
	for in, want := range map[string]stale.Action{"": stale.Warn, "warn": stale.Warn, "fail": stale.Fail, "rerecord": stale.Rerecord} {
		if a, err := stale.ParseAction(in); err != nil || a != want {
			t.Errorf("ParseAction(%q) = %q, %v; want %q", in, a, err, want)
		}
	}
	if _, err := stale.ParseAction("skip"); !errors.Is(err, stale.ErrAction) {
		t.Errorf("ParseAction(skip) = %v; want ErrAction", err)
	}
}

func TestPaths(t *testing.T) {
	dir := filepath.Join("..", "fixtures", "hermetic")
	all, err := stale.Dir(dir, stale.Policy{MinCodex: "0.171.0"})
	if err != nil || len(all) == 0 {
		t.Fatalf("Dir: %d results, %v", len(all), err)
	}
	missing := filepath.Join(t.TempDir(), "missing.jsonl")
	rs, errs := stale.Paths([]string{dir, missing, all[0].Path}, stale.Policy{MinCodex: "0.171.0"})
	if len(errs) != 1 || len(rs) != len(all)+1 {
		t.Fatalf("Paths: %d results, errors %v; want %d and one error for the missing file", len(rs), errs, len(all)+1)
	}
	if want := stale.Count(all) + stale.Count(all[:1]); stale.Count(rs) != want {
		t.Errorf("Count = %d, want %d", stale.Count(rs), want)
	}
}
