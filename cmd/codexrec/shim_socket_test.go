package main_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/testing/codextest"
	"github.com/codexrec/codexrec/internal/testing/wstest"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
	"github.com/codexrec/codexrec/wsproxy"
	"github.com/tidwall/gjson"
)

// freePort is a loopback port nothing listens on (the system picked it and it was
// released), for a client configured with a fixed ws:// URL.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startShim starts `codex ARGS` through the shim at shimPath in the background.
func startShim(t *testing.T, shimPath, dir string, env []string, args ...string) (*exec.Cmd, *codextest.SyncBuffer) {
	t.Helper()
	cmd := exec.Command(shimPath, args...)
	cmd.Dir, cmd.Env = dir, append(env, "GORACE=atexit_sleep_ms=0")
	var stderr codextest.SyncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, &stderr
}

// waitStderr waits until stderr holds want.
func waitStderr(t *testing.T, stderr *codextest.SyncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(stderr.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("stderr never said %q:\n%s", want, stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// methods lists the messages' methods, "response" for a response, up to and
// including turn/completed.
func methods(ms [][]byte) []string {
	var out []string
	for _, m := range ms {
		method := gjson.GetBytes(m, "method").Str
		if method == "" {
			method = "response"
		}
		out = append(out, method)
		if method == "turn/completed" {
			break
		}
	}
	return out
}

// TestShimSocket: `codex app-server --listen URL` through the shim, as a client
// that starts codex on a socket runs it. Mode record listens on the very URL, in
// front of the real codex, prints codex's own banner (ws://), and records the
// client's connection, which completes a turn, into CODEXREC_DIR/001-socket/;
// SIGTERM ends it with codex's status 0. Mode replay, with no real codex on PATH,
// serves the same turn from that directory on the same URL to the same client.
func TestShimSocket(t *testing.T) {
	shimPath := installShim(t)
	for _, v := range codexbin.Versions {
		for _, scheme := range []string{"ws", "unix"} {
			if scheme == "unix" && v != codexbin.Newest {
				continue // the transport below the relay is the same for both versions
			}
			t.Run(v+"/"+scheme, func(t *testing.T) {
				real := codextest.Binary(t, v)
				codex := wstest.Prepare(t, v, wstest.TurnModel())
				var env []string
				for _, kv := range codex.Env {
					if !strings.HasPrefix(kv, "CI=") && !strings.HasPrefix(kv, "CODEXREC_") {
						env = append(env, kv)
					}
				}
				recs := filepath.Join(t.TempDir(), "recordings")
				url := fmt.Sprintf("ws://127.0.0.1:%d", freePort(t))
				if scheme == "unix" {
					url = "unix://" + filepath.Join(t.TempDir(), "app-server.sock")
				}
				addr, err := wsproxy.ParseURL(url)
				if err != nil {
					t.Fatal(err)
				}
				args := append(append([]string(nil), codex.Args[1:]...), "--listen", url)
				ready := "codexrec record: listening on " + url + "\n"
				if scheme == "ws" {
					ready = wsproxy.Banner(url)
				}

				// Record.
				recEnv := pathEnv(append(env, "CODEXREC_MODE=record", "CODEXREC_DIR="+recs, "CODEXREC_RUN=record"),
					filepath.Dir(shimPath), filepath.Dir(real))
				cmd, stderr := startShim(t, shimPath, codex.Work, recEnv, args...)
				waitStderr(t, stderr, ready)
				live := wstest.MustDial(t, addr, nil)
				live.Turn(codex.Work)
				live.Conn.Close()
				names := waitGlob(t, filepath.Join(recs, "001-socket", "*.jsonl"), 1, stderr)
				cmd.Process.Signal(syscall.SIGTERM)
				if code := exitCode(t, cmd, stderr); code != 0 {
					t.Fatalf("record: exit %d:\n%s", code, stderr)
				}
				if !strings.Contains(stderr.String(), "codexrec: mode record: record "+filepath.Join(recs, "001-socket")+"/") {
					t.Errorf("record: no mode line naming %s/001-socket/:\n%s", recs, stderr)
				}
				if len(names) != 1 {
					t.Fatalf("recordings %q, want one", names)
				}
				rec, err := recorder.ReadFile(names[0])
				if err != nil {
					t.Fatal(err)
				}
				c2s := 0
				for _, e := range rec.Frames() {
					if e.Dir == wire.ClientToServer {
						c2s++
					}
				}
				if c2s != len(live.Sent()) || rec.Header.Socket == nil || rec.Header.Socket.Transport != scheme {
					t.Errorf("recorded %d client messages of %d sent; header socket %+v", c2s, len(live.Sent()), rec.Header.Socket)
				}
				if scheme == "unix" {
					if _, err := os.Lstat(addr.Path); err == nil {
						t.Errorf("record left its socket %s behind", addr.Path)
					}
				}

				// Replay, with no codex to be found.
				repEnv := pathEnv(append(env, "CODEXREC_MODE=replay", "CODEXREC_DIR="+recs, "CODEXREC_RUN=replay"),
					filepath.Dir(shimPath))
				cmd, stderr = startShim(t, shimPath, codex.Work, repEnv, args...)
				if scheme == "ws" {
					waitStderr(t, stderr, ready)
				} else {
					waitStderr(t, stderr, "codexrec replay: listening on "+url+"\n")
				}
				replayed := wstest.MustDial(t, addr, nil)
				replayed.Turn(codex.Work)
				replayed.Conn.Close()
				waitStderr(t, stderr, "codexrec replay: connection 1 (")
				cmd.Process.Signal(syscall.SIGTERM)
				if code := exitCode(t, cmd, stderr); code != 0 {
					t.Fatalf("replay: exit %d:\n%s", code, stderr)
				}
				if !strings.Contains(stderr.String(), "): replayed\n") {
					t.Errorf("replay: the connection was not replayed whole:\n%s", stderr)
				}
				got, want := methods(replayed.Got()), methods(live.Got())
				if strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("replayed turn:\n%s\nthe live one:\n%s", strings.Join(got, " "), strings.Join(want, " "))
				}
				if !strings.Contains(wstest.Lines(replayed.Got()), "Hello from the fake model.") {
					t.Errorf("the replayed turn lacks the model's answer:\n%s", wstest.Lines(replayed.Got()))
				}
			})
		}
	}
}

// handshake initializes, then makes one round trip, so that the server has read
// every message sent before the client hangs up (the relay may drop unread, and so
// never deliver nor record, a message that came just before the hang-up).
func handshake(c *wstest.Client) {
	i := c.Initialize("modes")
	c.Send(`{"id":2,"method":"thread/list","params":{}}`)
	c.Wait(i, "thread/list response", wstest.Response("2"))
}

// TestShimSocketModes: the modes' other cases for a socket session. Mode record over
// a directory that holds recordings replaces them, once the new session has its
// own; mode auto then replays it; auto under CI never records a missing one; a
// shim fixed to one recording file refuses a socket session.
func TestShimSocketModes(t *testing.T) {
	shimPath := installShim(t)
	real := codextest.Binary(t, codexbin.Newest)
	codex := wstest.Prepare(t, codexbin.Newest, wstest.TurnModel())
	var env []string
	for _, kv := range codex.Env {
		if !strings.HasPrefix(kv, "CI=") && !strings.HasPrefix(kv, "CODEXREC_") {
			env = append(env, kv)
		}
	}
	recs := filepath.Join(t.TempDir(), "recordings")
	dir := filepath.Join(recs, "001-socket")
	url := "unix://" + filepath.Join(t.TempDir(), "app-server.sock")
	addr, err := wsproxy.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	args := append(append([]string(nil), codex.Args[1:]...), "--listen", url)
	// session runs one session in mode through the shim, with one client that
	// initializes; it returns the shim's stderr.
	session := func(run, mode string) string {
		t.Helper()
		e := pathEnv(append(env, "CODEXREC_MODE="+mode, "CODEXREC_DIR="+recs, "CODEXREC_RUN="+run),
			filepath.Dir(shimPath), filepath.Dir(real))
		cmd, stderr := startShim(t, shimPath, codex.Work, e, args...)
		waitStderr(t, stderr, " listening on "+url+"\n")
		c := wstest.MustDial(t, addr, nil)
		handshake(c)
		c.Conn.Close()
		waitStderr(t, stderr, "connection 1 (")
		cmd.Process.Signal(syscall.SIGTERM)
		if code := exitCode(t, cmd, stderr); code != 0 {
			t.Fatalf("%s: exit %d:\n%s", run, code, stderr)
		}
		return stderr.String()
	}
	session("first", "record")
	first := waitGlob(t, filepath.Join(dir, "*.jsonl"), 1, &codextest.SyncBuffer{})
	out := session("second", "record")
	second, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(second) != 1 || second[0] == first[0] {
		t.Errorf("after recording again: %q, want one recording replacing %q\n%s", second, first, out)
	}
	if left, _ := filepath.Glob(filepath.Join(recs, ".001-socket*")); len(left) > 0 {
		t.Errorf("recording again left %q behind", left)
	}
	if out := session("third", "auto"); !strings.Contains(out, "codexrec: mode auto: replay "+dir+"/") ||
		!strings.Contains(out, "): replayed\n") {
		t.Errorf("mode auto over the recording did not replay it:\n%s", out)
	}

	t.Run("port 0", func(t *testing.T) {
		// A client that asks for any port reads the one chosen from codex's banner.
		e := pathEnv(append(env, "CODEXREC_MODE=replay", "CODEXREC_DIR="+recs, "CODEXREC_RUN=port0"), filepath.Dir(shimPath))
		zeroArgs := append(append([]string(nil), codex.Args[1:]...), "--listen", "ws://127.0.0.1:0")
		cmd, stderr := startShim(t, shimPath, codex.Work, e, zeroArgs...)
		banner := regexp.MustCompile(`\n  listening on: (ws://127\.0\.0\.1:([0-9]+))\n`)
		waitStderr(t, stderr, "  note: binds localhost only")
		m := banner.FindStringSubmatch(stderr.String())
		if m == nil || m[2] == "0" {
			t.Fatalf("no banner with the port chosen:\n%s", stderr)
		}
		a, err := wsproxy.ParseURL(m[1])
		if err != nil {
			t.Fatal(err)
		}
		c := wstest.MustDial(t, a, nil)
		handshake(c)
		c.Conn.Close()
		waitStderr(t, stderr, "connection 1 (")
		cmd.Process.Signal(syscall.SIGTERM)
		if code := exitCode(t, cmd, stderr); code != 0 || !strings.Contains(stderr.String(), "): replayed\n") {
			t.Errorf("exit %d, want 0 and the connection replayed:\n%s", code, stderr)
		}
	})
	t.Run("auto under CI", func(t *testing.T) {
		e := pathEnv(append(env, "CODEXREC_MODE=auto", "CODEXREC_DIR="+t.TempDir(), "CI=true"), filepath.Dir(shimPath))
		r := runEnv(t, e, nil, shimPath, args...)
		if r.code != 2 || !strings.Contains(string(r.stderr), "001-socket/ (mode auto never records when CI is set") {
			t.Errorf("exit %d, stderr %s; want 2 and the missing recording named", r.code, r.stderr)
		}
	})
	t.Run("one recording file", func(t *testing.T) {
		fixed := installShim(t, "--file", filepath.Join(t.TempDir(), "turn.jsonl"))
		e := pathEnv(append(env, "CODEXREC_MODE=auto"), filepath.Dir(fixed), filepath.Dir(real))
		r := runEnv(t, e, nil, fixed, args...)
		if r.code != 2 || !strings.Contains(string(r.stderr), "one recording per connection") {
			t.Errorf("exit %d, stderr %s; want 2 and why", r.code, r.stderr)
		}
	})
}
