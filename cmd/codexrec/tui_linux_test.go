package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/testing/codextest"
	"github.com/codexrec/codexrec/internal/testing/ptytest"
	"github.com/codexrec/codexrec/internal/testing/wstest"
)

// The official interactive CLI, `codex --remote URL PROMPT`, is an app-server client
// like `codex exec --remote`, with a richer start-up: it lists threads, skills,
// plugins, models and config before its first turn, in an order and a number that
// vary from run to run. It needs a terminal: these tests drive it through a
// pseudo-terminal of a fixed size that answers its cursor-position and colour
// queries. A fresh CODEX_HOME and a non-git directory show no prompt; one Ctrl-C on
// an empty composer quits.

const tuiReply = "Hello from the fake model."

// runTUI runs `codex --remote url PROMPT` until the model's reply shows and the turn
// has ended, then quits it with Ctrl-C. It returns the screen's text and the exit
// code.
func runTUI(t *testing.T, bin, url, dir string) (string, int) {
	t.Helper()
	env, _ := codextest.Env(t)
	cmd := exec.Command(bin, "--remote", url, cliPrompt)
	cmd.Env, cmd.Dir = append(env, "TERM=xterm-256color"), dir
	term, err := ptytest.Start(cmd, 40, 120)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	if err := term.WaitText(tuiReply, 60*time.Second); err != nil {
		cmd.Process.Kill()
		term.Wait(10 * time.Second)
		return term.Screen(), -1
	}
	// The turn is over once the TUI says how long it worked; then quit on an empty
	// composer.
	if err := term.WaitText("Worked for", 30*time.Second); err != nil {
		cmd.Process.Kill()
		term.Wait(10 * time.Second)
		return term.Screen(), -1
	}
	// What it does in the background after a turn (naming the thread, marking it
	// read) ends within a moment: quit once that is recorded too.
	time.Sleep(1500 * time.Millisecond)
	term.Write([]byte{3})
	code, err := term.Wait(30 * time.Second)
	if err != nil {
		t.Fatalf("codex --remote after Ctrl-C: %v; screen:\n%s", err, term.Screen())
	}
	return term.Screen(), code
}

// TestTUIRemote: the TUI records through `codexrec record --listen` and replays
// through `codexrec replay --listen`, over ws:// and unix://, with default flags; the
// replayed TUI shows the model's reply and exits 0. Each pair runs
// CODEXREC_TUI_RUNS times in a row (default 2; run it with 20 to check that the
// replay of a client whose start-up varies from run to run holds). A pair whose
// recording is made with --no-sanitize and sanitized afterwards by `codexrec
// sanitize` runs once per transport.
func TestTUIRemote(t *testing.T) {
	runs := 2
	if n, err := strconv.Atoi(os.Getenv("CODEXREC_TUI_RUNS")); err == nil && n > 0 {
		runs = n
	}
	for _, scheme := range []string{"ws", "unix"} {
		t.Run(scheme, func(t *testing.T) {
			bin := remoteCLI(t, codexbin.Newest)
			for i := 0; i < runs; i++ {
				tuiPair(t, bin, scheme, i+1, false)
			}
			t.Logf("%d record+replay pairs in a row passed", runs)
		})
		t.Run(scheme+"/sanitized-after", func(t *testing.T) {
			tuiPair(t, remoteCLI(t, codexbin.Newest), scheme, 1, true)
		})
	}
}

// tuiPair records one TUI session and replays it to another.
func tuiPair(t *testing.T, bin, scheme string, run int, sanitizeAfter bool) {
	t.Helper()
	codex := wstest.Prepare(t, codexbin.Newest, wstest.TurnModel())
	out := t.TempDir()
	urlFile := filepath.Join(t.TempDir(), "url")
	args := []string{"record", "--listen", listenURL(t, scheme), "--url-file", urlFile, "-o", out}
	if sanitizeAfter {
		args = append(args, "--no-sanitize")
	}
	cmd, stderr := startCodexrec(t, codex.Work, codex.Env, append(append(args, "--"), codex.Args...)...)
	url := strings.TrimSpace(string(waitFile(t, urlFile, stderr)))
	// The TUI runs where the recording is made, as a user records in their project;
	// the replay runs in another directory, as CI does.
	screen, code := runTUI(t, bin, url, codex.Work)
	cmd.Process.Signal(syscall.SIGTERM)
	recCode := exitCode(t, cmd, stderr)
	if code != 0 {
		t.Fatalf("run %d: codex --remote through record: exit %d; screen:\n%s\nrecord's stderr:\n%s", run, code, screen, stderr)
	}
	if recCode != 0 {
		t.Fatalf("run %d: record --listen: exit %d:\n%s", run, recCode, stderr)
	}
	names := waitGlob(t, filepath.Join(out, "*.jsonl"), 1, stderr)
	target := out
	if sanitizeAfter {
		if len(names) != 1 {
			t.Fatalf("recordings %q, want one", names)
		}
		target = filepath.Join(t.TempDir(), "clean.jsonl")
		c := exec.Command(codexrecBin, "sanitize", "-o", target, names[0])
		c.Dir, c.Env = codex.Work, codex.Env
		if b, err := c.CombinedOutput(); err != nil {
			t.Fatalf("codexrec sanitize: %v\n%s", err, b)
		}
	}

	urlFile = filepath.Join(t.TempDir(), "url")
	env, _ := codextest.Env(t)
	work := t.TempDir()
	cmd, stderr = startCodexrec(t, work, env, "replay", "--listen", listenURL(t, scheme), "--url-file", urlFile,
		"--connections", strconv.Itoa(len(names)), target)
	url = strings.TrimSpace(string(waitFile(t, urlFile, stderr)))
	screen, code = runTUI(t, bin, url, work)
	if code != 0 {
		cmd.Process.Signal(syscall.SIGTERM)
		exitCode(t, cmd, stderr)
		t.Fatalf("run %d: codex --remote against the replay: exit %d; screen:\n%s\nreplay's stderr:\n%s", run, code, screen, stderr)
	}
	if code := exitCode(t, cmd, stderr); code != 0 {
		t.Fatalf("run %d: replay --listen: exit %d:\n%s", run, code, stderr)
	}
}
