package codexrectest_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/codexrectest"
	"github.com/codexrec/codexrec/fixtures/fakemodel"
	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/testing/codextest"
	"github.com/codexrec/codexrec/shim"
)

// appClient is a minimal app-server client written with encoding/json alone, as a
// client library under test would be: it starts codex from a path, sends requests
// without "jsonrpc" and without the initialized notification, and reads lines.
type appClient struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan map[string]any
	seen  []map[string]any
}

func startClient(t *testing.T, codex string, args ...string) *appClient {
	t.Helper()
	cmd := exec.Command(codex, args...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &appClient{t: t, cmd: cmd, in: in, lines: make(chan map[string]any, 1024)}
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				c.lines <- m
			}
		}
	}()
	return c
}

// call sends a request and returns its result, keeping what came before it.
func (c *appClient) call(id int, method string, params any) map[string]any {
	c.t.Helper()
	b, _ := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		c.t.Fatal(err)
	}
	m := c.until(func(m map[string]any) bool { return m["id"] == float64(id) && m["method"] == nil })
	if m["error"] != nil {
		c.t.Fatalf("%s: %v", method, m["error"])
	}
	r, _ := m["result"].(map[string]any)
	return r
}

func (c *appClient) until(stop func(map[string]any) bool) map[string]any {
	c.t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case m, ok := <-c.lines:
			if !ok {
				c.t.Fatal("codex ended its output")
			}
			c.seen = append(c.seen, m)
			if stop(m) {
				return m
			}
		case <-timeout:
			c.t.Fatal("no answer within 30s")
		}
	}
}

func (c *appClient) close() error {
	c.in.Close()
	for range c.lines {
	}
	return c.cmd.Wait()
}

// turn runs one turn and returns the agent's text.
func turn(t *testing.T, codex, work, prompt string, args ...string) string {
	c := startClient(t, codex, args...)
	c.call(1, "initialize", map[string]any{"clientInfo": map[string]any{"name": "go-test-client", "version": "0.0.1"}})
	th := c.call(2, "thread/start", map[string]any{"cwd": work, "approvalPolicy": "never", "sandbox": "read-only"})
	id := th["thread"].(map[string]any)["id"]
	c.call(3, "turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": prompt}}})
	c.until(func(m map[string]any) bool { return m["method"] == "turn/completed" })
	var text strings.Builder
	for _, m := range c.seen {
		if m["method"] == "item/agentMessage/delta" {
			text.WriteString(m["params"].(map[string]any)["delta"].(string))
		}
	}
	if err := c.close(); err != nil {
		t.Errorf("codex exited: %v", err)
	}
	return text.String()
}

// TestShimReplaysFixture: a committed capture replays through the shim for a client
// that is not the one that recorded it, with no codex anywhere on PATH.
func TestShimReplaysFixture(t *testing.T) {
	t.Setenv("PATH", "/usr/bin:/bin")
	t.Setenv("CODEXREC_CODEX", "")
	codex := codexrectest.Shim(t, filepath.Join("..", "fixtures", "hermetic", codexbin.Newest, "plain.jsonl"), shim.ModeReplay)
	if got := turn(t, codex, t.TempDir(), "Say hello to codexrec.", "app-server"); got == "" {
		t.Error("no agent message in the replayed turn")
	}
}

// TestShimRecordThenReplay: in record mode the shim records a real turn (codex
// 0.171.0, a fake model) into the named file; in replay mode, with the real codex
// and the model gone, the same test gets the same answer from it.
func TestShimRecordThenReplay(t *testing.T) {
	real := codextest.Binary(t, codexbin.Newest)
	const answer = "Hello from a recording made in a Go test."
	model, err := fakemodel.Start([]fakemodel.Response{{Output: []fakemodel.Item{{Type: "message", Text: answer}}}})
	if err != nil {
		t.Fatal(err)
	}
	env, _ := codextest.Env(t)
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	recording := filepath.Join(t.TempDir(), "testdata", "turn.jsonl")
	args := codextest.FakeProviderArgs(model.URL())
	work := t.TempDir()

	t.Setenv("CODEXREC_CODEX", real)
	if got := turn(t, codexrectest.Shim(t, recording, shim.ModeRecord), work, "Say hello.", args...); got != answer {
		t.Fatalf("recorded turn: %q, want %q", got, answer)
	}
	model.Close()
	if _, err := os.Stat(recording); err != nil {
		t.Fatalf("no recording: %v", err)
	}

	t.Setenv("CODEXREC_CODEX", "")
	t.Setenv("PATH", "/usr/bin:/bin")
	t.Setenv("CI", "true")
	if got := turn(t, codexrectest.Shim(t, recording, shim.ModeAuto), work, "Say hello.", args...); got != answer {
		t.Fatalf("replayed turn: %q, want %q", got, answer)
	}
}

// Example shows a test of a client library that takes a codex path.
func Example() {
	// In a test: codex := codexrectest.Shim(t, "testdata/turn.jsonl", shim.ModeAuto)
	// then start the client under test with codex as its codex path.
	fmt.Println("codexrectest.Shim(t, recording, mode) returns a codex path")
	// Output: codexrectest.Shim(t, recording, mode) returns a codex path
}

// TestShimServesRealPaths: through the shim, a sanitized capture's <codex-home> and
// <cwd> reach a client that sends no cwd as absolute paths ($CODEX_HOME, the
// client's directory), as a strictly typed client needs.
func TestShimServesRealPaths(t *testing.T) {
	t.Setenv("PATH", "/usr/bin:/bin")
	t.Setenv("CODEXREC_CODEX", "")
	home := t.TempDir()
	t.Setenv("CODEX_HOME", home)
	// The recorded client sent a cwd, this one none; it stops after thread/start.
	t.Setenv("CODEXREC_REPLAY_FLAGS", "--match method --allow-unused")
	codex := codexrectest.Shim(t, filepath.Join("..", "fixtures", "hermetic", codexbin.Newest, "plain.jsonl"), shim.ModeReplay)
	c := startClient(t, codex, "app-server")
	init := c.call(1, "initialize", map[string]any{"clientInfo": map[string]any{"name": "go-test-client", "version": "0.0.1"}})
	if init["codexHome"] != home {
		t.Errorf("codexHome %v, want $CODEX_HOME %s", init["codexHome"], home)
	}
	th := c.call(2, "thread/start", map[string]any{"approvalPolicy": "never", "sandbox": "read-only"})
	wd, _ := os.Getwd()
	if cwd, _ := th["cwd"].(string); cwd != wd {
		t.Errorf("thread/start cwd %q, want the replay's working directory %s", cwd, wd)
	}
	c.close()
}
