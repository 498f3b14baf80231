package upgrade_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/codexrec/codexrec/upgrade"
)

// TestRunCodexPaths: a version left empty is asked of its binary, and a binary
// that cannot tell it stops Run before anything runs; with neither a version nor a
// binary there is nothing to compare.
func TestRunCodexPaths(t *testing.T) {
	work := filepath.Join(t.TempDir(), "work")
	missing := filepath.Join(t.TempDir(), "codex")
	res, err := upgrade.Run(context.Background(), upgrade.Options{CodexFrom: missing, To: "0.171.0", Scenarios: true, Work: work,
		Codex: func(string) (string, error) { t.Error("looked for a binary"); return "", nil }})
	if err == nil || res != nil {
		t.Errorf("a missing --from binary: %v, %v", res, err)
	}
	var se *upgrade.SettingError
	if _, err := upgrade.Run(context.Background(), upgrade.Options{To: "0.171.0", Scenarios: true, Work: work}); !errors.As(err, &se) || se.Setting != "From" {
		t.Errorf("no From: %v, want a *SettingError of From", err)
	}
}

// TestValidate: the versions are required (or their binaries), and either
// recordings or the scenarios, not both; each refusal names the field.
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		o             upgrade.Options
		setting, with string
		reason        error
	}{
		{upgrade.Options{From: "a", To: "b", Scenarios: true}, "", "", nil},
		{upgrade.Options{CodexFrom: "/x", CodexTo: "/y", Recordings: []string{"r"}}, "", "", nil},
		{upgrade.Options{To: "b", Scenarios: true}, "From", "", upgrade.ErrRequired},
		{upgrade.Options{From: "a", Scenarios: true}, "To", "", upgrade.ErrRequired},
		{upgrade.Options{From: "a", To: "b"}, "Recordings", "", upgrade.ErrRequired},
		{upgrade.Options{From: "a", To: "b", Scenarios: true, Recordings: []string{"r"}}, "Recordings", "Scenarios", upgrade.ErrExcludes},
	} {
		err := tc.o.Validate()
		var se *upgrade.SettingError
		switch {
		case tc.reason == nil && err != nil:
			t.Errorf("%+v: %v", tc.o, err)
		case tc.reason != nil && (!errors.As(err, &se) || se.Setting != tc.setting || se.With != tc.with || !errors.Is(err, tc.reason)):
			t.Errorf("%+v: %v, want %s %v %s", tc.o, err, tc.setting, tc.reason, tc.with)
		}
	}
}
