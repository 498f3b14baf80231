//go:build unix

package main_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// SIGKILL of the proxy: the server gets SIGTERM from the kernel (Linux), show
// --follow notices that the writer is gone and stops, the next record to the same
// target reports the orphan, and recover completes and publishes it.
func TestRecordProxyKilledThenRecover(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal and the writer's lock are Linux features here")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "s.jsonl")
	pidFile := filepath.Join(dir, "server.pid")
	// A server that outlives its stdin: only a signal ends it.
	server := `echo $$ > ` + pidFile + `; cat; exec sleep 300`
	s := startSession(t, "", nil, "record", "--no-validate", "-o", out, "--", "sh", "-c", server)
	roundTrip(t, s.stdin, s.stdout, `{"id":1,"method":"initialize"}`+"\n")
	roundTrip(t, s.stdin, s.stdout, `{"method":"initialized"}`+"\n")
	b, err := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid == 0 {
		t.Fatalf("server pid: %q %v", b, err)
	}
	tmps, _ := filepath.Glob(filepath.Join(dir, ".s.jsonl.*.tmp"))
	if len(tmps) != 1 {
		t.Fatalf("temporary files %v", tmps)
	}
	tmp := tmps[0]
	// Frames are recorded just after they are forwarded: wait until both echoes are
	// on disk before the kill.
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if b, _ := os.ReadFile(tmp); bytes.Count(b, []byte(`"type":"frame"`)) == 4 {
			break
		}
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	s.wait()
	if !waitGone(pid, 5*time.Second) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatal("the server outlived the killed proxy")
	}

	show := exec.Command(codexrecBin, "show", "--follow", "--poll", "20ms", out)
	var showOut, showErr bytes.Buffer
	show.Stdout, show.Stderr = &showOut, &showErr
	done := make(chan error, 1)
	show.Start()
	go func() { done <- show.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		show.Process.Kill()
		t.Fatalf("show --follow still waits on a recording whose writer is gone; stderr %q", showErr.String())
	}
	if !strings.Contains(showErr.String(), "is gone") || !strings.Contains(showOut.String(), "initialized") {
		t.Errorf("show --follow: stdout %q stderr %q", showOut.String(), showErr.String())
	}

	other := filepath.Join(dir, "other.jsonl") // record must not publish over the target before recover
	r := runCodexrec(t, "", strings.NewReader(""), "record", "-o", out, "--force", "--no-validate", "--", "sh", "-c", "exit 0")
	if !strings.Contains(string(r.stderr), tmp) || !strings.Contains(string(r.stderr), "codexrec recover "+tmp) {
		t.Errorf("the next record did not report the orphan: %q", r.stderr)
	}
	os.Rename(out, other)

	r = runCodexrec(t, "", nil, "recover", tmp)
	if r.code != 0 || !strings.Contains(string(r.stderr), "published "+out) {
		t.Fatalf("recover: exit %d, stderr %q", r.code, r.stderr)
	}
	rec := readRecording(t, out)
	if tr := rec.Trailer; tr.Ended != recorder.EndProxyKilled || tr.Frames["c2s"] != 2 || tr.Frames["s2c"] != 2 {
		t.Errorf("trailer %+v", tr)
	}
	if _, err := os.Stat(tmp); err == nil {
		t.Error("the temporary file is still there")
	}
}

// waitGone waits until pid no longer exists.
func waitGone(pid int, d time.Duration) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
			return true
		}
	}
	return false
}

// SIGQUIT ends the session like SIGTERM: the server is sent SIGTERM, the recording
// is published, and no goroutine dump appears.
func TestRecordSIGQUIT(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.jsonl")
	s := startSession(t, "", nil, "record", "-o", out, "--", faultserverBin(t), "-on-term", "7")
	roundTrip(t, s.stdin, s.stdout, `{"method":"ping"}`+"\n")
	s.cmd.Process.Signal(syscall.SIGQUIT)
	if code := s.wait(); code != 7 {
		t.Fatalf("exit %d, want the server's 7; stderr %s", code, s.stderr)
	}
	if strings.Contains(s.stderr.String(), "goroutine") {
		t.Errorf("goroutine dump on stderr: %.300s", s.stderr)
	}
	rec := readRecording(t, out)
	if tr := rec.Trailer; tr.Ended != recorder.EndSignal || tr.Signal != "SIGQUIT" || tr.ExitCode != 7 {
		t.Errorf("trailer %+v", tr)
	}
	s2c := rec.Frames(wire.ServerToClient)
	if last := string(s2c[len(s2c)-1].Line); !strings.Contains(last, `"signal":"terminated"`) {
		t.Errorf("the server did not get SIGTERM: last frame %q", last)
	}
}
