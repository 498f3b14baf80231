package upgrade_test

import (
	"context"
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
	if _, err := upgrade.Run(context.Background(), upgrade.Options{To: "0.171.0", Scenarios: true, Work: work}); err == nil {
		t.Error("no From: no error")
	}
}
