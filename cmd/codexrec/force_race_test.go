package main_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/recorder"
)

// TestTwoForcedRecordsKeepBoth: two `record --force -o same.jsonl` sessions at once
// both end with their recording: the second to finish finds the first's, which it
// never saw, and goes to the next free name, saying so with exit 2.
func TestTwoForcedRecordsKeepBoth(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "same.jsonl")
	start := func(msg string) (*exec.Cmd, io.WriteCloser, *bytes.Buffer) {
		cmd := exec.Command(codexrecBin, "record", "--force", "--no-validate", "-o", out, "--", "cat")
		in, _ := cmd.StdinPipe()
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		io.WriteString(in, `{"method":"`+msg+`"}`+"\n")
		return cmd, in, &stderr
	}
	a, aIn, aErr := start("first")
	b, bIn, bErr := start("second")
	time.Sleep(500 * time.Millisecond) // both have created their temporary file
	aIn.Close()
	if err := a.Wait(); err != nil {
		t.Fatalf("first session: %v\n%s", err, aErr)
	}
	bIn.Close()
	err := b.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(bErr.String(), "same.2.jsonl") {
		t.Fatalf("second session: %v, stderr %s: want exit 2 naming same.2.jsonl", err, bErr)
	}
	for p, method := range map[string]string{out: "first", filepath.Join(dir, "same.2.jsonl"): "second"} {
		rec, err := recorder.ReadFile(p)
		if err != nil || len(rec.Frames()) == 0 || !bytes.Contains(rec.Frames()[0].Line, []byte(method)) {
			t.Errorf("%s: %v: want the %s session", p, err, method)
		}
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v", p, fi, err)
		}
	}
}

// TestOutputFilesNeverThroughLinks: view --force, diff --html --force and check
// --junit onto a symbolic link replace the link with a 0600 file and leave its
// target as it was.
func TestOutputFilesNeverThroughLinks(t *testing.T) {
	plain, _ := filepath.Abs(replayFixture(codexbin.Newest, "plain"))
	for _, args := range [][]string{
		{"view", "--force", "-o", "OUT", plain},
		{"diff", "--html", "--force", "-o", "OUT", plain, plain},
		{"check", "--junit", "OUT", plain},
	} {
		dir := t.TempDir()
		target := filepath.Join(dir, "target")
		if err := os.WriteFile(target, []byte("keep me\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out")
		if err := os.Symlink(target, out); err != nil {
			t.Fatal(err)
		}
		for i, a := range args {
			if a == "OUT" {
				args[i] = out
			}
		}
		r := runCodexrec(t, dir, nil, args...)
		if r.code > 1 {
			t.Errorf("%s: exit %d: %s", args[0], r.code, r.stderr)
		}
		if b, _ := os.ReadFile(target); string(b) != "keep me\n" {
			t.Errorf("%s wrote through the link: target holds %.40q", args[0], b)
		}
		fi, err := os.Lstat(out)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v: want a regular 0600 file in place of the link", args[0], fi, err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 2 {
			t.Errorf("%s: files left behind: %v", args[0], ents)
		}
	}
}
