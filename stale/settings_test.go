package stale_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/stale"
)

// TestSettings: settings as written parse into a policy and an action, apply to a
// recording about to be replayed, and ask for the installed Codex only when needed.
func TestSettings(t *testing.T) {
	old := filepath.Join("..", "fixtures", "hermetic", "0.163.0", "plain.jsonl")
	asked := 0
	installed := func() (string, error) { asked++; return "0.171.0", nil }
	var le *stale.LimitError
	var re *stale.RefusedError

	r, err := stale.Settings{Action: "nonsense"}.BeforeReplay(old, false)
	if err != nil || r.Stale() {
		t.Errorf("no limit: %v %v; want nothing read, nothing stale", r, err)
	}
	r, err = stale.Settings{Limits: stale.Limits{MinCodex: stale.Installed}, Installed: installed}.BeforeReplay(old, false)
	if err != nil || !r.Stale() || asked != 1 {
		t.Errorf("warn: %v %v, installed asked %d times; want stale, once", r, err, asked)
	}
	if _, err := (stale.Settings{Limits: stale.Limits{MinCodex: "0.171.0"}, Action: "fail"}).BeforeReplay(old, false); !errors.As(err, &re) {
		t.Errorf("fail: %v, want a RefusedError", err)
	}
	for _, tc := range []struct {
		s  stale.Settings
		ok func(error) bool
	}{
		{stale.Settings{Limits: stale.Limits{MaxAge: "soon"}}, func(err error) bool { return errors.As(err, &le) && le.Limit == "max_age" }},
		{stale.Settings{Limits: stale.Limits{MinCodex: stale.Installed}}, func(err error) bool { return errors.As(err, &le) && le.Limit == "min_codex" }},
		{stale.Settings{Limits: stale.Limits{MaxAge: "30d"}, Action: "explode"}, func(err error) bool { return errors.Is(err, stale.ErrAction) }},
	} {
		if _, err := tc.s.BeforeReplay(old, false); !tc.ok(err) {
			t.Errorf("%+v: %v", tc.s, err)
		}
	}

	asked = 0
	s := stale.Settings{Limits: stale.Limits{MinCodex: stale.Installed}, Installed: installed, Action: "warn"}
	if _, ok := s.Rerecords(old, true, false); ok || asked != 0 {
		t.Errorf("warn rerecords %v (installed asked %d times); want neither", ok, asked)
	}
	s.Action = "rerecord"
	if _, ok := s.Rerecords(old, true, true); ok || asked != 0 {
		t.Errorf("under CI: rerecords %v (installed asked %d times); want neither", ok, asked)
	}
	if r, ok := s.Rerecords(old, true, false); !ok || !r.Stale() || asked != 1 {
		t.Errorf("rerecord: %v %v (installed asked %d times)", r, ok, asked)
	}
	if _, ok := s.Rerecords(filepath.Join("..", "fixtures", "hermetic", "0.171.0", "plain.jsonl"), true, false); ok {
		t.Error("a fresh recording is recorded afresh")
	}
}

// TestList: each stale recording under the paths on out; what could not be read and
// the count on log; the numbers in the Listing.
func TestList(t *testing.T) {
	dir := filepath.Join("..", "fixtures", "hermetic")
	missing := filepath.Join(t.TempDir(), "missing.jsonl")
	var out, log bytes.Buffer
	l, err := stale.Settings{Limits: stale.Limits{MinCodex: "0.171.0"}}.List(&out, &log, []string{dir, missing})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if l.Stale == 0 || l.Stale >= l.Total || len(lines) != l.Stale || l.Unread == nil {
		t.Fatalf("%+v; out:\n%s", l, out.String())
	}
	for _, line := range lines {
		if !strings.Contains(line, "0.163.0") || !strings.Contains(line, "older than 0.171.0") {
			t.Errorf("listed %q", line)
		}
	}
	logLines := strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n")
	if len(logLines) != 2 || !strings.Contains(logLines[0], "missing.jsonl") || !strings.HasSuffix(logLines[1], " recording(s) stale") {
		t.Errorf("log:\n%s", log.String())
	}
	if _, err := (stale.Settings{}).List(&out, nil, []string{dir}); !errors.Is(err, stale.ErrNoLimit) {
		t.Errorf("no limit: %v", err)
	}
}
