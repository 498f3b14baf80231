//go:build unix

package main_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestRecordingFromPipe: every command that reads a recording reads one from a
// pipe (/dev/stdin here; `diff <(git show HEAD:r.jsonl) r.jsonl` in a shell) as it
// reads the same file: the output is the same but for the name. The commands that
// read a recording twice (diff, view, export) said "illegal seek" or, worse, "empty
// file" for a pipe: they copy it to a private temporary file first, removed after.
func TestRecordingFromPipe(t *testing.T) {
	src, err := filepath.Abs(replayFixture("0.171.0", "plain"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir, tmp := t.TempDir(), t.TempDir()
	file := filepath.Join(dir, "stdin.jsonl") // scenario from-recording names its scenario by the base name
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(stdin []byte, args ...string) ([]byte, int) {
		cmd := exec.Command(codexrecBin, args...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "TMPDIR="+tmp)
		if stdin != nil {
			cmd.Stdin = bytes.NewReader(stdin) // a pipe: not an *os.File
		}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.Run()
		// The name in the output, and JSON's escaping of its slashes, made one.
		b := bytes.ReplaceAll(out.Bytes(), []byte(file), []byte("NAME"))
		b = bytes.ReplaceAll(b, []byte("/dev/stdin"), []byte("NAME"))
		return b, cmd.ProcessState.ExitCode()
	}
	for _, args := range [][]string{
		{"summary", "R"}, {"show", "R"}, {"show", "--json", "R"}, {"validate", "R"}, {"check", "--json", "R"},
		{"view", "-o", "-", "R"}, {"export", "--format", "har", "-o", "-", "R"}, {"export", "--format", "jsonl", "-o", "-", "R"},
		{"diff", "R", file}, {"diff", "--json", "R", file}, {"scenario", "from-recording", "R"},
	} {
		withFile, withPipe := make([]string, len(args)), make([]string, len(args))
		for i, a := range args {
			withFile[i], withPipe[i] = a, a
			if a == "R" {
				withFile[i], withPipe[i] = file, "/dev/stdin"
			}
		}
		want, wantCode := run(nil, withFile...)
		got, code := run(data, withPipe...)
		if code != wantCode || !bytes.Equal(got, want) {
			t.Errorf("%v from a pipe: exit %d (file: %d)\n%.600s\nwant\n%.600s", args, code, wantCode, got, want)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
}

// TestPipeInRecordingsDir: a pipe named like a recording in a directory of
// recordings is left out by the commands that list the directory (check, check
// --stale, replay --listen DIR): before, check opened it and waited for a writer
// forever.
func TestPipeInRecordingsDir(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(replayFixture("0.171.0", "plain"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "plain.jsonl"), src, 0o600)
	if err := syscall.Mkfifo(filepath.Join(dir, "stuck.jsonl"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, args := range [][]string{{"check", "--json", dir}, {"check", "--stale", "--max-age", "100000d", dir}} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, codexrecBin, args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.Run()
		late := ctx.Err() != nil
		cancel()
		if late || cmd.ProcessState.ExitCode() > 1 || bytes.Contains(out.Bytes(), []byte("stuck")) {
			t.Errorf("%v: exit %d (timed out: %v)\n%s", args, cmd.ProcessState.ExitCode(), late, out.Bytes())
		}
	}
}
