package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/fixtures/client"
	"github.com/codexrec/codexrec/fixtures/fakemodel"
	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/testing/codextest"
)

var extendReplies = []string{"Hello from the first turn.", "And hello again from the second turn."}

// extendCodex is the real codex behind a fake model answering turns turns.
func extendCodex(t *testing.T, turns int) []string {
	t.Helper()
	bin := codextest.Binary(t, codexbin.Newest)
	var script []fakemodel.Response
	for _, r := range extendReplies[:turns] {
		script = append(script, fakemodel.Response{Output: []fakemodel.Item{{Type: "message", Text: r}}})
	}
	m, err := fakemodel.Start(script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return append([]string{bin}, codextest.FakeProviderArgs(m.URL())...)
}

// turnsThrough runs codexrec with args as a client's app-server and has one turn
// per prompt with it; it returns each turn's reply, stderr and the exit status.
func turnsThrough(t *testing.T, env []string, dir string, args []string, prompts ...string) ([]string, string, int) {
	t.Helper()
	return turnsWith(t, codexrecBin, env, dir, args, prompts...)
}

// turnsWith is turnsThrough with another program (the shim).
func turnsWith(t *testing.T, argv0 string, env []string, dir string, args []string, prompts ...string) ([]string, string, int) {
	t.Helper()
	cmd := exec.Command(argv0, args...)
	cmd.Env, cmd.Dir = append(env, "GORACE=atexit_sleep_ms=0"), dir
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr codextest.SyncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := client.New(out, in, 60*time.Second)
	var got []string
	talk := func() error {
		if err := c.Initialize(ctx); err != nil {
			return err
		}
		tid, err := c.StartThread(ctx, map[string]any{"approvalPolicy": "never", "sandbox": "read-only", "cwd": dir})
		if err != nil {
			return err
		}
		for _, p := range prompts {
			mark := c.Mark()
			turn, err := c.StartTurn(ctx, tid, p)
			if err != nil {
				return err
			}
			if _, _, err := c.WaitTurnCompleted(ctx, mark, turn); err != nil {
				return err
			}
			text := ""
			for _, e := range c.Events(mark) {
				var p struct {
					Item struct{ Type, Text string } `json:"item"`
				}
				if e.Method == "item/completed" && json.Unmarshal(e.Params, &p) == nil && p.Item.Type == "agentMessage" {
					text = p.Item.Text
				}
			}
			got = append(got, text)
		}
		return nil
	}
	talkErr := talk()
	c.Close()
	err = cmd.Wait()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if talkErr != nil && code == 0 {
		t.Fatalf("codexrec %v: exit 0, but the client failed: %v\n%s", args, talkErr, stderr.String())
	}
	return got, stderr.String(), code
}

// TestExtendBinary: codexrec replay --mode extend adds a second turn to a
// one-turn recording with the real codex; with CI set the extended recording
// replays both turns, and --mode extend is refused (exit 2, one line).
func TestExtendBinary(t *testing.T) {
	dir := t.TempDir()
	env := cleanEnv(t)
	rec := filepath.Join(dir, "turns.jsonl")
	got, stderr, code := turnsThrough(t, env, dir, append([]string{"record", "-o", rec, "--"}, extendCodex(t, 1)...), "Say hello.")
	if code != 0 || len(got) != 1 || got[0] != extendReplies[0] {
		t.Fatalf("record: exit %d, replies %q\n%s", code, got, stderr)
	}
	before, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}

	got, stderr, code = turnsThrough(t, env, dir, append([]string{"replay", "--mode", "extend", rec, "--"}, extendCodex(t, 2)...),
		"Say hello.", "Say it again.")
	if code != 0 || len(got) != 2 || got[0] != extendReplies[0] || got[1] != extendReplies[1] {
		t.Fatalf("extend: exit %d, replies %q\n%s", code, got, stderr)
	}
	for _, want := range []string{"codexrec: mode extend: extend " + rec, "extend: client line 5 is not in", "codexrec: extended " + rec + " with segment 2"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	t.Logf("extend's stderr:\n%s", stderr)
	after, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(rec); fi.Mode().Perm() != 0o600 {
		t.Errorf("the extended recording is %v, want 0600", fi.Mode().Perm())
	}
	if !bytes.Contains(after, []byte(`"segment":2,"extends":1`)) || bytes.Contains(after[len(before)-200:], []byte(dir)) {
		t.Fatalf("the extended recording lacks its segment, or holds the workspace path unsanitized")
	}

	ci := append(env, "CI=true")
	got, stderr, code = turnsThrough(t, ci, dir, []string{"replay", rec}, "Say hello.", "Say it again.")
	if code != 0 || len(got) != 2 || got[1] != extendReplies[1] {
		t.Fatalf("replay under CI: exit %d, replies %q\n%s", code, got, stderr)
	}
	got, stderr, code = turnsThrough(t, ci, dir, append([]string{"replay", "--mode", "extend", rec, "--"}, extendCodex(t, 2)...),
		"Say hello.", "Say it again.")
	if code != 2 || len(got) != 0 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "CI is set") {
		t.Fatalf("extend under CI: exit %d, replies %q, stderr:\n%s", code, got, stderr)
	}
	t.Logf("extend under CI:\n%s", stderr)
	if now, _ := os.ReadFile(rec); !bytes.Equal(now, after) {
		t.Fatal("extend under CI changed the recording")
	}
}

// TestExtendShimConfig: through the shim, mode = "extend" in .codexrec.toml adds
// the second turn to the recording the shim made in mode record; with CI set the
// shim replays both turns and refuses the file's extend.
func TestExtendShimConfig(t *testing.T) {
	shimPath := installShim(t)
	work := t.TempDir()
	recs := filepath.Join(t.TempDir(), "recs")
	rec := filepath.Join(recs, "turns.jsonl")
	run := 0
	env := func(extra ...string) []string {
		// Each session a run of its own, as commands typed one after the other
		// are: the name finds the same recording again.
		run++
		return append(cleanEnv(t, "CODEXREC_DIR="+recs, "CODEXREC_NAME=turns", fmt.Sprintf("CODEXREC_RUN=%d", run)), extra...)
	}
	codex := func(turns int) (args, env []string) {
		c := extendCodex(t, turns)
		return c[1:], []string{"CODEXREC_CODEX=" + c[0]}
	}
	args, real := codex(1)
	got, stderr, code := turnsWith(t, shimPath, env(append(real, "CODEXREC_MODE=record")...), work, args, "Say hello.")
	if code != 0 || len(got) != 1 || got[0] != extendReplies[0] {
		t.Fatalf("recording through the shim: exit %d, replies %q\n%s", code, got, stderr)
	}
	if err := os.WriteFile(filepath.Join(work, ".codexrec.toml"), []byte("mode = \"extend\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args, real = codex(2)
	got, stderr, code = turnsWith(t, shimPath, env(real...), work, args, "Say hello.", "Say it again.")
	if code != 0 || len(got) != 2 || got[1] != extendReplies[1] || !strings.Contains(stderr, "mode extend: extend "+rec) {
		t.Fatalf("extend through the shim: exit %d, replies %q\n%s", code, got, stderr)
	}
	got, stderr, code = turnsWith(t, shimPath, env(append(real, "CI=true", "CODEXREC_MODE=replay")...), work, args, "Say hello.", "Say it again.")
	if code != 0 || len(got) != 2 || got[0] != extendReplies[0] || got[1] != extendReplies[1] {
		t.Fatalf("replay through the shim under CI: exit %d, replies %q\n%s", code, got, stderr)
	}
	_, stderr, code = turnsWith(t, shimPath, env(append(real, "CI=true")...), work, args, "Say hello.")
	if code != 2 || !strings.Contains(stderr, "mode extend is refused under CI") {
		t.Fatalf("the file's extend under CI: exit %d\n%s", code, stderr)
	}
}
