package stale_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/stale"
)

func TestCheck(t *testing.T) {
	now := time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC)
	h := recorder.Header{Started: "2026-11-29T11:04:40.05Z", CodexVersion: "0.163.0"}
	for _, tc := range []struct {
		name string
		h    recorder.Header
		p    stale.Policy
		want []string
	}{
		{"zero policy", h, stale.Policy{}, nil},
		{"young enough", h, stale.Policy{MaxAge: 40 * 24 * time.Hour, Now: now}, nil},
		{"too old", h, stale.Policy{MaxAge: 30 * 24 * time.Hour, Now: now}, []string{"recorded 31 days ago (2026-11-29), older than the maximum age 720h0m0s"}},
		{"older codex", h, stale.Policy{MinCodex: "0.171.0"}, []string{"made by Codex 0.163.0, older than 0.171.0"}},
		{"numeric order", recorder.Header{CodexVersion: "0.99.0"}, stale.Policy{MinCodex: "0.100.0"}, []string{"made by Codex 0.99.0, older than 0.100.0"}},
		{"same codex", h, stale.Policy{MinCodex: "0.163.0"}, nil},
		{"unknown date and codex", recorder.Header{}, stale.Policy{MaxAge: time.Hour, MinCodex: "0.1.0"},
			[]string{"does not say when it was made", "does not say which Codex made it"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stale.Check(tc.h, tc.p)
			if len(r.Reasons) != len(tc.want) {
				t.Fatalf("reasons %q, want %q", r.Reasons, tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(r.Reasons[i], w) {
					t.Errorf("reason %q, want %q", r.Reasons[i], w)
				}
			}
		})
	}
	if err := (stale.Policy{MinCodex: "latest"}).Validate(); err == nil {
		t.Error("MinCodex latest validated")
	}
}

// TestDir reads the committed captures: their Codex version comes from a meta entry.
func TestDir(t *testing.T) {
	rs, err := stale.Dir(filepath.Join("..", "fixtures", "hermetic"), stale.Policy{MinCodex: "0.171.0"})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rs {
		if r.Codex == "" {
			t.Errorf("%s: no Codex version read", r.Path)
		}
		if r.Stale() != strings.Contains(r.Path, "0.163.0") {
			t.Errorf("%s", r)
		}
		if r.Stale() {
			n++
		}
	}
	if n == 0 || n == len(rs) {
		t.Errorf("%d of %d stale", n, len(rs))
	}
}
