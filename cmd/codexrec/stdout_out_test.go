package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDashOutRefused: where -o names a file that cannot be stdout (record's stdout
// is the wire; capture, rerun and recover publish a finished file; upgrade's page
// has diff pages beside it), -o - is a one-line usage error, exit 2, and nothing
// named - is created.
func TestDashOutRefused(t *testing.T) {
	plain, _ := filepath.Abs(filepath.Join(fixtureRoot, "0.171.0", "plain.jsonl"))
	for name, args := range map[string][]string{
		"record":          {"record", "-o", "-", "--", "cat"},
		"record --mode":   {"record", "--mode", "record", "-o", "-", "--", "cat"},
		"record --listen": {"record", "--listen", "ws://127.0.0.1:0", "-o", "-", "--", "cat"},
		"capture":         {"capture", "--scenario", "plain", "-o", "-"},
		"rerun":           {"rerun", "-o", "-", plain},
		"recover":         {"recover", "-o", "-", ".plain.jsonl.1.tmp"},
		"upgrade":         {"upgrade", "--from", "0.171.0", "--to", "0.171.0", "-o", "-", plain},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			r := runCodexrec(t, dir, strings.NewReader(""), args...)
			msg := strings.TrimSuffix(string(r.stderr), "\n")
			if r.code != 2 || strings.Contains(msg, "\n") || !strings.Contains(msg, "-o -: ") || !strings.HasPrefix(msg, "codexrec "+args[0]+": ") {
				t.Errorf("exit %d, want 2 and one line saying why -o - is refused:\n%s", r.code, r.stderr)
			}
			if _, err := os.Lstat(filepath.Join(dir, "-")); err == nil {
				t.Errorf("a file named - was created")
			}
		})
	}
}
