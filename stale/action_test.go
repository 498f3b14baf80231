package stale_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/stale"
)

// TestActions: what each action does with a stale and a fresh recording before a
// replay, and when Rerecord records afresh.
func TestActions(t *testing.T) {
	old := filepath.Join("..", "fixtures", "hermetic", "0.163.0", "plain.jsonl")
	fresh := filepath.Join("..", "fixtures", "hermetic", "0.171.0", "plain.jsonl")
	p := stale.Policy{MinCodex: "0.171.0"}
	for _, tc := range []struct {
		a          stale.Action
		path       string
		ci         bool
		stale      bool
		refusedWhy string // "-": not refused
	}{
		{stale.Warn, old, false, true, "-"},
		{stale.Warn, fresh, false, false, "-"},
		{stale.Fail, old, false, true, ""},
		{stale.Fail, fresh, false, false, "-"},
		{stale.Rerecord, old, false, true, "no command"},
		{stale.Rerecord, old, true, true, "CI is set"},
		{stale.Rerecord, fresh, true, false, "-"},
	} {
		r, err := tc.a.BeforeReplay(tc.path, p, tc.ci)
		var re *stale.RefusedError
		switch {
		case r.Stale() != tc.stale:
			t.Errorf("%s %s: stale %v, want %v", tc.a, tc.path, r.Stale(), tc.stale)
		case tc.refusedWhy == "-" && err != nil:
			t.Errorf("%s %s: %v, want no refusal", tc.a, tc.path, err)
		case tc.refusedWhy != "-" && !errors.As(err, &re):
			t.Errorf("%s %s: %v, want a *RefusedError", tc.a, tc.path, err)
		case tc.refusedWhy != "-" && (!strings.Contains(re.Why, tc.refusedWhy) || !strings.HasPrefix(err.Error(), "stale recording ")):
			t.Errorf("%s %s: %q (why %q), want why containing %q", tc.a, tc.path, err, re.Why, tc.refusedWhy)
		}
	}
	if _, ok := stale.Rerecord.Rerecords(old, p, true, false); !ok {
		t.Error("Rerecord with a command, no CI: a stale recording is not recorded afresh")
	}
	for _, tc := range []struct {
		a         stale.Action
		path      string
		canRecord bool
		ci        bool
	}{{stale.Warn, old, true, false}, {stale.Rerecord, fresh, true, false}, {stale.Rerecord, old, false, false}, {stale.Rerecord, old, true, true}} {
		if _, ok := tc.a.Rerecords(tc.path, p, tc.canRecord, tc.ci); ok {
			t.Errorf("%s %s canRecord=%v ci=%v: recorded afresh", tc.a, tc.path, tc.canRecord, tc.ci)
		}
	}
}
