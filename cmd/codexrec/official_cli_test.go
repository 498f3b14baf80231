package main_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/testing/codextest"
	"github.com/codexrec/codexrec/internal/testing/wstest"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wsproxy"
)

// The official Codex CLI as an app-server client: `codex exec --remote URL PROMPT`
// (0.171.0 on; 0.163.0's exec has no --remote) connects to a running app-server,
// sends thread/start with "cwd": null and decodes the paths the server answers as
// absolute paths. These tests record it through codexrec and replay the recording
// to it, with default flags.

const cliPrompt = "Say hello to codexrec."

// remoteCLI is the official CLI binary of version v, or a skip naming why not.
func remoteCLI(t *testing.T, v string) string {
	t.Helper()
	if v == "0.163.0" {
		t.Skip("codex 0.163.0 has no --remote option on exec (it exits 2 on it): the official CLI connects to an app-server only from 0.171.0 on")
	}
	return codextest.Binary(t, v)
}

// cliResult is how one run of the CLI ended.
type cliResult struct {
	stdout, stderr string
	code           int
}

// runExecRemote runs `codex exec --remote url PROMPT` from a fresh CODEX_HOME in a
// fresh non-git directory, with extra environment and arguments.
func runExecRemote(t *testing.T, bin, url string, extraEnv []string, extraArgs ...string) cliResult {
	t.Helper()
	env, _ := codextest.Env(t)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	args := append([]string{"exec", "--remote", url}, extraArgs...)
	cmd := exec.CommandContext(ctx, bin, append(args, cliPrompt)...)
	cmd.Env, cmd.Dir = append(env, extraEnv...), t.TempDir()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("running codex exec: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("codex exec --remote %s did not end within 120s; stderr:\n%s", url, errb.String())
	}
	return cliResult{out.String(), errb.String(), code}
}

// listenURL is a URL for a codexrec listener of scheme: port 0 (read back from
// --url-file) for ws, a fresh socket path for unix.
func listenURL(t *testing.T, scheme string) string {
	if scheme == "unix" {
		return "unix://" + filepath.Join(t.TempDir(), "app.sock")
	}
	return "ws://127.0.0.1:0"
}

// recordCLI records one `codex exec --remote` run through `codexrec record --listen`
// with default flags (and extra), and returns the CLI's result and the recording.
func recordCLI(t *testing.T, bin string, codex *wstest.Codex, scheme string, clientEnv, clientArgs []string, extra ...string) (cliResult, string) {
	t.Helper()
	out := t.TempDir()
	urlFile := filepath.Join(t.TempDir(), "url")
	args := append([]string{"record", "--listen", listenURL(t, scheme), "--url-file", urlFile, "-o", out}, extra...)
	cmd, stderr := startCodexrec(t, codex.Work, codex.Env, append(append(args, "--"), codex.Args...)...)
	url := strings.TrimSpace(string(waitFile(t, urlFile, stderr)))
	res := runExecRemote(t, bin, url, clientEnv, clientArgs...)
	names := waitGlob(t, filepath.Join(out, "*.jsonl"), 1, stderr)
	cmd.Process.Signal(syscall.SIGTERM)
	if code := exitCode(t, cmd, stderr); code != 0 {
		t.Fatalf("record --listen: exit %d:\n%s", code, stderr)
	}
	if res.code != 0 || !strings.Contains(res.stdout, "Hello") {
		t.Fatalf("codex exec through record: exit %d, stdout %q; stderr:\n%s\nrecord's stderr:\n%s", res.code, res.stdout, res.stderr, stderr)
	}
	if len(names) != 1 {
		t.Fatalf("recordings %q, want one", names)
	}
	return res, names[0]
}

// replayCLI replays path to one `codex exec --remote` run through `codexrec replay
// --listen` with default flags (and extra), from another directory than the
// recording's, and checks the replay found every recorded message.
func replayCLI(t *testing.T, bin, path, scheme string, clientEnv, clientArgs []string, extra ...string) cliResult {
	t.Helper()
	urlFile := filepath.Join(t.TempDir(), "url")
	env, _ := codextest.Env(t)
	args := append([]string{"replay", "--listen", listenURL(t, scheme), "--url-file", urlFile, "--connections", "1"}, extra...)
	cmd, stderr := startCodexrec(t, t.TempDir(), env, append(args, path)...)
	url := strings.TrimSpace(string(waitFile(t, urlFile, stderr)))
	res := runExecRemote(t, bin, url, clientEnv, clientArgs...)
	if code := exitCode(t, cmd, stderr); code != 0 {
		t.Fatalf("replay --listen: exit %d:\n%s\ncodex exec: exit %d, stdout %q, stderr:\n%s", code, stderr, res.code, res.stdout, res.stderr)
	}
	return res
}

// sameReply checks that the replayed run printed what the recorded one did.
func sameReply(t *testing.T, recorded, replayed cliResult) {
	t.Helper()
	if replayed.code != 0 || replayed.stdout != recorded.stdout {
		t.Fatalf("codex exec against the replay: exit %d, stdout %q; against the real server: stdout %q; stderr:\n%s",
			replayed.code, replayed.stdout, recorded.stdout, replayed.stderr)
	}
}

// TestExecRemote: `codex exec --remote` over ws:// and unix:// records through
// `codexrec record --listen` and replays through `codexrec replay --listen`, both with
// default flags (so the recording is sanitized): the replayed run exits 0 and prints
// the same reply.
func TestExecRemote(t *testing.T) {
	for _, v := range codexbin.Versions {
		for _, scheme := range []string{"ws", "unix"} {
			t.Run(v+"/"+scheme, func(t *testing.T) {
				bin := remoteCLI(t, v)
				codex := wstest.Prepare(t, v, wstest.TurnModel())
				rec, path := recordCLI(t, bin, codex, scheme, nil, nil)
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Contains(b, []byte(`"cwd":"<cwd>`)) && !bytes.Contains(b, []byte(`<codex-home>`)) {
					t.Errorf("the recording holds no path placeholder: the sanitizer mapped nothing")
				}
				sameReply(t, rec, replayCLI(t, bin, path, scheme, nil, nil))
			})
		}
	}
}

// TestExecRemoteSanitizedAfter: a recording made with --no-sanitize and sanitized
// afterwards by `codexrec sanitize` replays to the CLI like one sanitized while
// recording.
func TestExecRemoteSanitizedAfter(t *testing.T) {
	for _, scheme := range []string{"ws", "unix"} {
		t.Run(scheme, func(t *testing.T) {
			bin := remoteCLI(t, codexbin.Newest)
			codex := wstest.Prepare(t, codexbin.Newest, wstest.TurnModel())
			rec, raw := recordCLI(t, bin, codex, scheme, nil, nil, "--no-sanitize")
			clean := filepath.Join(t.TempDir(), "clean.jsonl")
			// Sanitized as the recording machine would: its cwd and CODEX_HOME.
			cmd := exec.Command(codexrecBin, "sanitize", "-o", clean, raw)
			cmd.Dir, cmd.Env = codex.Work, codex.Env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("codexrec sanitize: %v\n%s", err, out)
			}
			b, err := os.ReadFile(clean)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(b, []byte("<codex-home>")) || bytes.Contains(b, []byte(codex.CodexHome)) {
				t.Fatalf("codexrec sanitize left CODEX_HOME %s in the recording", codex.CodexHome)
			}
			sameReply(t, rec, replayCLI(t, bin, clean, scheme, nil, nil))
		})
	}
}

// TestExecRemoteToken: a client that sends a bearer token (--remote-auth-token-env)
// over ws:// records (the token never in the recording) and replays with
// --ws-token-file; the replay refuses the CLI without a token.
func TestExecRemoteToken(t *testing.T) {
	bin := remoteCLI(t, codexbin.Newest)
	codex := wstest.Prepare(t, codexbin.Newest, wstest.TurnModel())
	const token = "codexrec-test-token-4f1d9a2b7c"
	env := []string{"CODEXREC_TEST_TOKEN=" + token}
	args := []string{"--remote-auth-token-env", "CODEXREC_TEST_TOKEN"}
	rec, path := recordCLI(t, bin, codex, "ws", env, args)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(token)) {
		t.Fatal("the token reached the recording")
	}
	r, err := recorder.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if r.Header.Socket == nil || http.Header(r.Header.Socket.Headers).Get("Authorization") != wsproxy.Redacted {
		t.Errorf("the recording's header does not say the client authenticated: %+v", r.Header.Socket)
	}
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sameReply(t, rec, replayCLI(t, bin, path, "ws", env, args, "--ws-token-file", tokenFile))

	// Without a token the replay refuses the upgrade, as the real server would.
	urlFile := filepath.Join(t.TempDir(), "url")
	cmd, stderr := startCodexrec(t, t.TempDir(), os.Environ(), "replay", "--listen", "ws://127.0.0.1:0", "--url-file", urlFile, "--ws-token-file", tokenFile, path)
	url := strings.TrimSpace(string(waitFile(t, urlFile, stderr)))
	if res := runExecRemote(t, bin, url, nil); res.code == 0 || strings.Contains(res.stdout, "Hello") {
		t.Errorf("codex exec without a token against a replay that wants one: exit %d, stdout %q", res.code, res.stdout)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	exitCode(t, cmd, stderr)
}

// TestExecRemoteShim: `codex app-server --listen URL` through the shim, mode record
// then mode replay (no real codex on PATH), with `codex exec --remote URL` as the
// client: the same reply, exit 0.
func TestExecRemoteShim(t *testing.T) {
	shimPath := installShim(t)
	for _, scheme := range []string{"ws", "unix"} {
		t.Run(scheme, func(t *testing.T) {
			bin := remoteCLI(t, codexbin.Newest)
			codex := wstest.Prepare(t, codexbin.Newest, wstest.TurnModel())
			var env []string
			for _, kv := range codex.Env {
				if !strings.HasPrefix(kv, "CI=") && !strings.HasPrefix(kv, "CODEXREC_") {
					env = append(env, kv)
				}
			}
			recs := filepath.Join(t.TempDir(), "recordings")
			url := "unix://" + filepath.Join(t.TempDir(), "app.sock")
			if scheme == "ws" {
				url = fmt.Sprintf("ws://127.0.0.1:%d", freePort(t))
			}
			args := append(append([]string(nil), codex.Args[1:]...), "--listen", url)
			ready := "codexrec record: listening on " + url + "\n"
			if scheme == "ws" {
				ready = "listening on: " + url
			}
			recEnv := pathEnv(append(env, "CODEXREC_MODE=record", "CODEXREC_DIR="+recs, "CODEXREC_RUN=record"),
				filepath.Dir(shimPath), filepath.Dir(codex.Args[0]))
			cmd, stderr := startShim(t, shimPath, codex.Work, recEnv, args...)
			waitStderr(t, stderr, ready)
			rec := runExecRemote(t, bin, url, nil)
			waitGlob(t, filepath.Join(recs, "001-socket", "*.jsonl"), 1, stderr)
			cmd.Process.Signal(syscall.SIGTERM)
			if code := exitCode(t, cmd, stderr); code != 0 {
				t.Fatalf("record: exit %d:\n%s", code, stderr)
			}
			if rec.code != 0 || !strings.Contains(rec.stdout, "Hello") {
				t.Fatalf("codex exec through the recording shim: exit %d, stdout %q:\n%s", rec.code, rec.stdout, rec.stderr)
			}

			repEnv := pathEnv(append(env, "CODEXREC_MODE=replay", "CODEXREC_DIR="+recs, "CODEXREC_RUN=replay"),
				filepath.Dir(shimPath))
			cmd, stderr = startShim(t, shimPath, t.TempDir(), repEnv, args...)
			if scheme == "ws" {
				waitStderr(t, stderr, ready)
			} else {
				waitStderr(t, stderr, "codexrec replay: listening on "+url+"\n")
			}
			replayed := runExecRemote(t, bin, url, nil)
			waitStderr(t, stderr, "codexrec replay: connection 1 (")
			cmd.Process.Signal(syscall.SIGTERM)
			if code := exitCode(t, cmd, stderr); code != 0 {
				t.Fatalf("replay: exit %d:\n%s", code, stderr)
			}
			sameReply(t, rec, replayed)
		})
	}
}
