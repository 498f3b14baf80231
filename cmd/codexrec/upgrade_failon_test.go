package main_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/testing/codextest"
)

// TestUpgradeFailOn runs the built binary's upgrade: --fail-on moves the exit code
// (a changed rerun fails at warning, not at the default error; a breaking one
// passes at never), exit 1 names on stderr what caused it (a recording's rerun or
// the schema diff), and each rerun is announced on stderr as it starts.
func TestUpgradeFailOn(t *testing.T) {
	old, nw := codexbin.Oldest, codexbin.Newest
	codextest.Binary(t, old)
	codextest.Binary(t, nw)
	dir := t.TempDir()
	changed, breaking := editedRecordings(t, dir)
	plain, _ := filepath.Abs(filepath.Join("..", "..", "fixtures", "hermetic", old, "plain.jsonl"))
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		cause    string // on stderr with exit 1
		progress string // a progress line on stderr
	}{
		{"changed, default", []string{"--from", old, "--to", old, changed}, 0, "", "rerunning " + changed + " on codex " + old},
		{"changed, warning", []string{"--from", old, "--to", old, "--fail-on", "warning", changed}, 1, `recording changed\S* changed \(--fail-on warning\)`, ""},
		{"breaking, default", []string{"--from", old, "--to", old, breaking}, 1, `recording breaking\S* is breaking \(--fail-on error\)`, ""},
		{"breaking, never", []string{"--from", old, "--to", old, "--fail-on", "never", breaking}, 0, "", ""},
		{"schema", []string{"--from", old, "--to", nw, plain}, 1, `the schema diff has \d+ change\(s\) at or above breaking \(--fail-on error\)`, "rerunning " + plain + " on codex " + nw},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCodexrec(t, "", nil, append([]string{"upgrade"}, tc.args...)...)
			stderr := string(r.stderr)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tc.code, stderr)
			}
			var last string
			if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) > 0 {
				last = lines[len(lines)-1]
			}
			if tc.cause != "" && !regexp.MustCompile(`^codexrec upgrade: `+tc.cause+`$`).MatchString(last) {
				t.Errorf("exit 1's cause: last stderr line %q, want %q", last, tc.cause)
			}
			if tc.cause == "" && strings.Contains(stderr, "--fail-on") {
				t.Errorf("exit 0 with a cause on stderr:\n%s", stderr)
			}
			if tc.progress != "" && !strings.Contains(stderr, "codexrec upgrade: "+tc.progress+"\n") {
				t.Errorf("no progress line %q on stderr:\n%s", tc.progress, stderr)
			}
		})
	}
}
