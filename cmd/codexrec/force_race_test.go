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
