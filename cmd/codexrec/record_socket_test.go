package main_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codexrec/codexrec/internal/testing/codextest"
	"github.com/codexrec/codexrec/internal/testing/wstest"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
	"github.com/codexrec/codexrec/wsproxy"
)

// startCodexrec starts the built binary in the background.
func startCodexrec(t *testing.T, dir string, env []string, args ...string) (*exec.Cmd, *codextest.SyncBuffer) {
	t.Helper()
	cmd := exec.Command(codexrecBin, args...)
	cmd.Dir, cmd.Env = dir, env
	var stderr codextest.SyncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, &stderr
}

// waitFile waits for path to exist and returns its content.
func waitFile(t *testing.T, path string, stderr *codextest.SyncBuffer) []byte {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if b, err := os.ReadFile(path); err == nil {
			return b
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared; stderr:\n%s", path, stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitGlob waits until pattern matches n files.
func waitGlob(t *testing.T, pattern string, n int, stderr *codextest.SyncBuffer) []string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		names, _ := filepath.Glob(pattern)
		if len(names) >= n {
			return names
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d files matching %s; stderr:\n%s", len(names), n, pattern, stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func exitCode(t *testing.T, cmd *exec.Cmd, stderr *codextest.SyncBuffer) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("codexrec did not exit; stderr:\n%s", stderr)
	}
	return cmd.ProcessState.ExitCode()
}

// A full turn through `codexrec record --listen`, over ws:// and unix://, against
// both pinned versions, with the whole pipeline (validation, sanitizing, leak
// guard): the client completes its turn, the recording holds every message it sent
// and got, and it equals the stdio recording of the same turn after normalisation
// (codexrec diff --ignore-moves exits 0: an asynchronous notification may come at
// another place from run to run, whatever the transport).
func TestRecordListen(t *testing.T) {
	for _, v := range []string{"0.163.0", "0.171.0"} {
		for _, scheme := range []string{"ws", "unix"} {
			t.Run(v+"/"+scheme, func(t *testing.T) {
				codex := wstest.Prepare(t, v, wstest.TurnModel())
				out := t.TempDir()
				urlFile := filepath.Join(t.TempDir(), "url")
				listen := "ws://127.0.0.1:0"
				if scheme == "unix" {
					listen = "unix://" + filepath.Join(t.TempDir(), "rec.sock")
				}
				args := append([]string{"record", "--listen", listen, "--url-file", urlFile, "-o", out, "--"}, codex.Args...)
				cmd, stderr := startCodexrec(t, codex.Work, codex.Env, args...)
				url := strings.TrimSpace(string(waitFile(t, urlFile, stderr)))
				if !strings.Contains(stderr.String(), "listening on "+url) {
					t.Errorf("stderr does not print the URL %s:\n%s", url, stderr)
				}
				addr, err := wsproxy.ParseURL(url)
				if err != nil {
					t.Fatal(err)
				}
				c := wstest.MustDial(t, addr, nil)
				c.Turn(codex.Work)
				c.Conn.Close()
				names := waitGlob(t, filepath.Join(out, "*.jsonl"), 1, stderr)
				cmd.Process.Signal(syscall.SIGTERM)
				if code := exitCode(t, cmd, stderr); code != 0 {
					t.Fatalf("record --listen exit %d:\n%s", code, stderr)
				}
				rec, err := recorder.ReadFile(names[0])
				if err != nil {
					t.Fatal(err)
				}
				var c2s, s2c int
				for _, e := range rec.Frames() {
					switch e.Dir {
					case wire.ClientToServer:
						c2s++
					case wire.ServerToClient:
						s2c++
					}
				}
				if c2s != len(c.Sent()) || s2c < len(c.Got()) {
					t.Errorf("recorded %d c2s and %d s2c; the client sent %d and got %d", c2s, s2c, len(c.Sent()), len(c.Got()))
				}
				if rec.Header.Socket == nil || rec.Header.Socket.Transport != scheme || rec.Header.Sanitize == nil {
					t.Errorf("header = %+v", rec.Header)
				}

				// The same turn over stdio.
				sc := wstest.Prepare(t, v, wstest.TurnModel())
				stdioRec := filepath.Join(t.TempDir(), "stdio.jsonl")
				scmd := exec.Command(codexrecBin, append([]string{"record", "--no-stderr", "-o", stdioRec, "--"}, sc.Args...)...)
				scmd.Dir, scmd.Env = sc.Work, sc.Env
				stdin, _ := scmd.StdinPipe()
				stdout, _ := scmd.StdoutPipe()
				var serr codextest.SyncBuffer
				scmd.Stderr = &serr
				if err := scmd.Start(); err != nil {
					t.Fatal(err)
				}
				sclient := wstest.Stdio(t, stdin, stdout)
				sclient.Turn(sc.Work)
				stdin.Close()
				if code := exitCode(t, scmd, &serr); code != 0 {
					t.Fatalf("stdio record exit %d:\n%s", code, serr.String())
				}
				res := runCodexrec(t, "", nil, "diff", "--ignore-moves", stdioRec, names[0])
				if res.code != 0 {
					t.Errorf("diff stdio ws = exit %d:\n%s\n%s", res.code, res.stdout, res.stderr)
				}
				// The control: without its last server message the ws recording differs.
				b, err := os.ReadFile(names[0])
				if err != nil {
					t.Fatal(err)
				}
				lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
				cut := -1
				for i, l := range lines {
					if bytes.Contains(l, []byte(`"dir":"s2c"`)) {
						cut = i
					}
				}
				lines = append(lines[:cut:cut], lines[cut+1:]...)
				short := filepath.Join(t.TempDir(), "short.jsonl")
				if err := os.WriteFile(short, append(bytes.Join(lines, []byte("\n")), '\n'), 0o600); err != nil {
					t.Fatal(err)
				}
				if res := runCodexrec(t, "", nil, "diff", "--ignore-moves", stdioRec, short); res.code != 1 {
					t.Errorf("diff stdio vs the ws recording less one message = exit %d, want 1:\n%s", res.code, res.stderr)
				}
			})
		}
	}
}

// stdio record refuses a command that listens on a socket: it would see nothing.
func TestRecordRefusesListeningCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.jsonl")
	res := runCodexrec(t, "", nil, "record", "-o", out, "--", "codex", "app-server", "--listen", "ws://127.0.0.1:4500")
	if res.code != 2 || !bytes.Contains(res.stderr, []byte("record --listen")) {
		t.Errorf("exit %d, stderr %s; want 2 naming record --listen", res.code, res.stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a recording was created: %v", err)
	}
	res = runCodexrec(t, "", nil, "record", "-o", out, "--", "true", "app-server", "--listen", "stdio://")
	if res.code != 0 {
		t.Errorf("--listen stdio:// is stdio: exit %d, %s", res.code, res.stderr)
	}
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--listen", "ws://127.0.0.1:0", "-o", dir, "--upstream", "unix://" + filepath.Join(dir, "none.sock")}, "no app-server at"},
		{[]string{"--listen", "ws://127.0.0.1:0", "-o", dir}, "--upstream URL or a command"},
		{[]string{"--listen", "ws://localhost", "-o", dir, "--", "codex", "app-server"}, "want ws://HOST:PORT"},
		{[]string{"--listen", "ws://127.0.0.1:0", "-o", dir, "--", "codex", "app-server", "--listen", "unix://"}, "leave --listen unix:// out"},
		{[]string{"--upstream", "ws://127.0.0.1:1", "-o", out, "--", "codex"}, "needs --listen"},
	} {
		res := runCodexrec(t, "", nil, append([]string{"record"}, tt.args...)...)
		if res.code != 2 || !bytes.Contains(res.stderr, []byte(tt.want)) {
			t.Errorf("record %q: exit %d, stderr %s; want 2 saying %q", tt.args, res.code, res.stderr, tt.want)
		}
	}
}

// TestRecordRefusals: the built binary says record's settings that do not go
// together (dropin.RecordOptions.Validate's fields) as its flags, exit 2.
func TestRecordRefusals(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.jsonl")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--url-file", filepath.Join(dir, "u"), "-o", out, "--", "codex"}, "--url-file needs --listen ws://HOST:PORT or unix://PATH"},
		{[]string{"--listen", "ws://127.0.0.1:0", "-o", dir, "--upstream", "ws://127.0.0.1:1", "--", "codex"}, "--upstream and a command exclude each other"},
		{[]string{"--listen", "ws://127.0.0.1:0", "-o", dir, "--memory-budget", "-1", "--", "codex"}, "--memory-budget: -1 MiB: want 0 (the default) or more"},
		{[]string{"--listen", "ws://127.0.0.1:0", "-o", dir, "--upstream", "http://x"}, "--upstream: "},
		{[]string{"--listen", "ws://127.0.0.1:0", "--", "codex"}, "-o DIR is required with --listen"},
		{[]string{"-o", "-", "--", "codex"}, "-o -: stdout carries the server's messages"},
		{[]string{"-o", out, "--", "codex", "app-server", "--listen", "ws://127.0.0.1:1"}, "the command listens on ws://127.0.0.1:1, where this proxy sees nothing: record a socket with codexrec record --listen URL -o DIR -- codex app-server"},
	} {
		r := runCodexrec(t, "", nil, append([]string{"record"}, tc.args...)...)
		if r.code != 2 || !strings.Contains(string(r.stderr), "codexrec record: "+tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}
