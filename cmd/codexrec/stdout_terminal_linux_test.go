package main_test

import (
	"bytes"
	"os/exec"
	"testing"
	"time"

	"github.com/codexrec/codexrec/internal/testing/ptytest"
)

// TestDashOutExactOnTerminal: on a terminal, sanitize -o - makes the recording
// safe to look at: the bidi override and the C1 control its frames carry are shown
// as JSON escapes of the same value, never raw.
func TestDashOutExactOnTerminal(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(codexrecBin, "sanitize", bidiRecording(t, dir), "-o", "-")
	cmd.Dir = dir
	term, err := ptytest.Start(cmd, 24, 200)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	if code, err := term.Wait(time.Minute); err != nil || code != 0 {
		t.Fatalf("exit %d, %v\n%q", code, err, term.Output())
	}
	out := term.Output()
	if bytes.ContainsAny(out, "\u202e\u0085") || !bytes.Contains(out, []byte(`a\u202eb \u0085 c`)) {
		t.Errorf("the terminal got raw controls or lost the frame:\n%q", out)
	}
}
