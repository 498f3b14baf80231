//go:build unix

package main_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEndlessInputEveryReader: every command that reads a recording, given a
// device with no end and no newline (/dev/zero), says in one line that it is not a
// recording and exits 2 at once; before, each grew its first line until memory ran
// out. scan refuses the device, and reads a pipe (here its stdin) to its end, where
// it said "clean" without reading it.
func TestEndlessInputEveryReader(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	const z = "/dev/zero"
	for _, args := range [][]string{
		{"summary", z}, {"show", z}, {"validate", z}, {"check", z}, {"diff", z, z},
		{"view", "-o", "-", z}, {"export", "--format", "jsonl", "-o", "-", z}, {"sanitize", z, "-o", "-"},
		{"replay", z}, {"scenario", "from-recording", z}, {"rerun", "--codex", "/bin/true", "-o", filepath.Join(dir, "r.jsonl"), z},
		{"scan", z},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, codexrecBin, args...)
		var stderr bytes.Buffer
		cmd.Dir, cmd.Stderr = dir, &stderr
		err := cmd.Run()
		late := ctx.Err() != nil
		cancel()
		want := "not a recording"
		if args[0] == "scan" {
			want = "a device, not a file or a pipe"
		}
		msg := strings.TrimSuffix(stderr.String(), "\n")
		if late || cmd.ProcessState.ExitCode() != 2 || strings.Contains(msg, "\n") || !strings.Contains(msg, want) {
			t.Errorf("%v: %v (exit %d), stderr %q; want exit 2 and one line saying %q", args, err, cmd.ProcessState.ExitCode(), msg, want)
		}
	}
	key := "sk-proj-Zq7WxAbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH"
	cmd := exec.Command(codexrecBin, "scan", "/dev/stdin")
	cmd.Stdin = strings.NewReader(strings.Repeat("an ordinary line of text\n", 5000) + "the key " + key + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Run()
	if cmd.ProcessState.ExitCode() != 3 || !strings.Contains(stdout.String(), "/dev/stdin: openai-key  line 5001") || strings.Contains(stdout.String()+stderr.String(), key) {
		t.Errorf("scan /dev/stdin from a pipe: exit %d\nstdout %q\nstderr %q", cmd.ProcessState.ExitCode(), stdout.String(), stderr.String())
	}
}
