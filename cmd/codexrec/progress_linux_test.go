package main_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/testing/codextest"
	"github.com/codexrec/codexrec/internal/testing/ptytest"
)

// TestCaptureProgressOnTerminal: on a terminal, capture shows the step running on
// one status line (each server lifetime, each turn) and clears it before its
// closing line; on a pipe it prints no step at all.
func TestCaptureProgressOnTerminal(t *testing.T) {
	codex := codextest.Binary(t, codexbin.Newest)
	dir := t.TempDir()
	cmd := exec.Command(codexrecBin, "capture", "--scenario", "resume", "--codex", codex, "-o", filepath.Join(dir, "r.jsonl"))
	cmd.Dir = dir
	term, err := ptytest.Start(cmd, 24, 200)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	code, err := term.Wait(2 * time.Minute)
	if err != nil || code != 0 {
		t.Fatalf("capture on a terminal: exit %d, %v\n%s", code, err, term.Output())
	}
	out := string(term.Output())
	for _, step := range []string{"starting codex (server lifetime 1)", "turn 1 of 2", "starting codex (server lifetime 2)", "turn 2 of 2"} {
		if !strings.Contains(out, "\r\x1b[Kcodexrec capture: "+step) {
			t.Errorf("no progress step %q on the terminal:\n%q", step, out)
		}
	}
	screen := term.Screen()
	if strings.Contains(screen, "turn 2 of 2") || !strings.Contains(screen, "resume with codex at ") {
		t.Errorf("the status line is not cleared before the closing line:\n%s", screen)
	}

	r := runCodexrec(t, dir, nil, "capture", "--scenario", "resume", "--codex", codex, "-o", filepath.Join(dir, "p.jsonl"))
	if r.code != 0 || strings.Contains(string(r.stderr), "lifetime") || strings.Contains(string(r.stderr), "\r") {
		t.Errorf("capture on a pipe: exit %d, stderr %q (want no progress)", r.code, r.stderr)
	}
}
