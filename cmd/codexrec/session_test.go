package main_test

import (
	"bufio"
	"bytes"
	"io"
	"os/exec"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/internal/testing/codextest"
)

// sessionTimeout bounds each wait on a live session; when it passes, codexrec is
// killed and the wait fails with what it was waiting for and codexrec's stderr.
const sessionTimeout = 60 * time.Second

// liveSession is the built codexrec running with the test as its client on both
// pipes: the end-to-end tests that drive `codexrec record -- SERVER` (a real codex
// app-server, a replay, a fault server) write the client's lines, read what the client
// receives, then close stdin and wait.
type liveSession struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader // what the client receives; every byte read is in received
	stderr *codextest.SyncBuffer
	// received holds every byte read from stdout so far.
	received bytes.Buffer
	// onLine, when set, sees every line readLine reads (to answer the server's
	// requests, say).
	onLine func(line string)
}

// startSession starts codexrec with args in dir (the test's own when empty) with env
// (this process's when nil). It is killed, if still running, when the test ends.
func startSession(t testing.TB, dir string, env []string, args ...string) *liveSession {
	t.Helper()
	s := &liveSession{t: t, cmd: exec.Command(codexrecBin, args...), stderr: &codextest.SyncBuffer{}}
	s.cmd.Dir, s.cmd.Env, s.cmd.Stderr = dir, env, s.stderr
	stdin, err := s.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.cmd.Process.Kill(); s.cmd.Wait() })
	s.stdin, s.stdout = stdin, bufio.NewReader(io.TeeReader(stdout, &s.received))
	return s
}

// send writes each line, with a newline, to codexrec's stdin.
func (s *liveSession) send(lines ...string) {
	s.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(s.stdin, l+"\n"); err != nil {
			s.t.Fatalf("sending %.200s: %v; stderr:\n%s", l, err, s.stderr)
		}
	}
}

// readLine returns the next line the client receives; what names it for the error
// when stdout ends or sessionTimeout passes first.
func (s *liveSession) readLine(what string) string {
	s.t.Helper()
	deadline := time.AfterFunc(sessionTimeout, func() { s.cmd.Process.Kill() })
	defer deadline.Stop()
	l, err := s.stdout.ReadString('\n')
	if err != nil {
		s.t.Fatalf("waiting for %s: %v; stderr:\n%s", what, err, s.stderr)
	}
	if s.onLine != nil {
		s.onLine(l)
	}
	return l
}

// waitFor reads lines until pred accepts one, and returns it.
func (s *liveSession) waitFor(what string, pred func(line string) bool) string {
	s.t.Helper()
	for {
		if l := s.readLine(what); pred(l) {
			return l
		}
	}
}

// waitResponse waits for the response with id (a JSON id as written: 1, "two").
func (s *liveSession) waitResponse(id string) string {
	s.t.Helper()
	return s.waitFor("the response to "+id, func(l string) bool {
		return gjson.Get(l, "id").Raw == id && !gjson.Get(l, "method").Exists()
	})
}

// wait reads stdout to its end (into received) and returns codexrec's exit code.
func (s *liveSession) wait() int {
	s.t.Helper()
	deadline := time.AfterFunc(sessionTimeout, func() { s.cmd.Process.Kill() })
	defer deadline.Stop()
	io.Copy(io.Discard, s.stdout)
	return exitCodeOf(s.cmd.Wait())
}

// finish closes stdin, as a client that is done does, and waits.
func (s *liveSession) finish() int {
	s.t.Helper()
	s.stdin.Close()
	return s.wait()
}

func exitCodeOf(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
