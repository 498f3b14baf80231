package main_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/codexrec/codexrec/internal/codexbin"
)

// TestReplaySIGTERMAfterEOF: a client that closes stdin and sends SIGTERM at once (the
// Python codex-app-server-sdk does) ends the replay like EOF, whichever the replay
// notices first: exit 0 after a complete session, every time. Half the runs also close
// their end of stdout at once, so the replay's last writes meet a closed pipe; the
// other half read it to the end. A client that stops early gets EOF's answer too:
// exit 1 with the frames that never came listed.
func TestReplaySIGTERMAfterEOF(t *testing.T) {
	plain := replayFixture(codexbin.Newest, "plain")
	in, _, _ := recordedClientInput(t, plain)
	firstLine := in[:bytes.IndexByte(in, '\n')+1]
	const runs = 50
	for i := 0; i < runs; i++ {
		closeOut := i%2 == 1
		code, stderr := replayThenTerm(t, plain, in, closeOut)
		if code != 0 {
			t.Fatalf("run %d (stdout closed: %v): exit %d, want 0; stderr:\n%s", i+1, closeOut, code, stderr)
		}
		if strings.Contains(stderr, "context canceled") {
			t.Fatalf("run %d: stderr:\n%s", i+1, stderr)
		}
	}
	code, stderr := replayThenTerm(t, plain, firstLine, false)
	if code != 1 || !strings.Contains(stderr, "3 expected client frame(s) never came") {
		t.Errorf("a client that stops after initialize: exit %d, want 1 with the unused frames listed; stderr:\n%s", code, stderr)
	}
}

// replayThenTerm runs the built replay, writes in, closes stdin and sends SIGTERM
// straight away once the replay has answered, and returns the exit code and stderr.
func replayThenTerm(t *testing.T, recording string, in []byte, closeOut bool) (int, string) {
	t.Helper()
	cmd := exec.Command(codexrecBin, "replay", recording)
	// The race detector's exit pause (a second by default) only slows the 50 runs.
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := stdin.Write(in); err != nil {
		t.Fatal(err)
	}
	// A client sees its first answer before it finishes; the replay is running by then
	// (a signal before that would find no handler installed, as with any program).
	first := make([]byte, 1)
	if _, err := io.ReadFull(stdout, first); err != nil {
		t.Fatalf("no answer from the replay: %v; stderr:\n%s", err, errb.String())
	}
	drained := make(chan struct{})
	go func() {
		if !closeOut {
			io.Copy(io.Discard, stdout)
		}
		close(drained)
	}()
	stdin.Close()
	cmd.Process.Signal(syscall.SIGTERM)
	if closeOut {
		stdout.Close()
	}
	<-drained
	err = cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, errb.String()
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			t.Fatalf("the replay was killed by %v; stderr:\n%s", ws.Signal(), errb.String())
		}
		return ee.ExitCode(), errb.String()
	}
	t.Fatal(err)
	return 0, ""
}
