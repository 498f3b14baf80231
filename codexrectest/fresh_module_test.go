package codexrectest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/codexbin"
)

// TestFreshModule uses codexrectest the way a user does: a new module that requires
// codexrec (here through a replace directive to this checkout), go mod tidy, go
// test. The user's test builds the codexrec command inside that module, which works
// only when tidy put every module the command imports in the user's go.sum; its
// second test replays a shipped recording through Shim, a stand-in codex.
//
// Hermetic: no network. The module cache this repository's build filled serves the
// modules (GOPROXY=off), and the user's go.sum starts as this repository's, the
// sums a user's go would fetch from the checksum database (GOSUMDB=off).
func TestFreshModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds codexrec in a new module")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	goenv, err := exec.Command(goCmd, "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		t.Fatal(err)
	}
	vars := strings.Split(strings.TrimSpace(string(goenv)), "\n")
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/user\n\ngo 1.26\n\nrequire github.com/codexrec/codexrec v0.0.0\n\nreplace github.com/codexrec/codexrec => "+root+"\n")
	sums, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write("go.sum", string(sums))
	fixture := filepath.Join(root, "fixtures", "hermetic", codexbin.Newest, "plain.jsonl")
	write("user_test.go", `package user

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/codexrectest"
	"github.com/codexrec/codexrec/shim"
)

func TestBinary(t *testing.T) {
	out, err := exec.Command(codexrectest.Binary(t), "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "codexrec ") {
		t.Fatalf("%v: %s", err, out)
	}
}

// TestShim replays a shipped recording through the stand-in codex, with no real
// codex on PATH: the recorded turn (its prompt as recorded) gives an agent message.
func TestShim(t *testing.T) {
	codex := codexrectest.Shim(t, `+strconv.Quote(fixture)+`, shim.ModeReplay)
	t.Setenv("PATH", "/usr/bin:/bin")
	t.Setenv("CODEXREC_CODEX", "")
	cmd := exec.Command(codex, "app-server")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 16<<20)
	var text strings.Builder
	// call sends a request and reads up to its response (or, with until, a
	// notification of that method), keeping the agent's message deltas.
	call := func(id int, method string, params any, until string) map[string]any {
		b, _ := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
		if _, err := in.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				continue
			}
			if m["method"] == "item/agentMessage/delta" {
				text.WriteString(m["params"].(map[string]any)["delta"].(string))
			}
			if until == "" && m["id"] == float64(id) && m["method"] == nil || until != "" && m["method"] == until {
				if m["error"] != nil {
					t.Fatalf("%s: %v", method, m["error"])
				}
				r, _ := m["result"].(map[string]any)
				return r
			}
		}
		t.Fatalf("%s: the stand-in ended its output (%v)", method, sc.Err())
		return nil
	}
	call(1, "initialize", map[string]any{"clientInfo": map[string]any{"name": "user-test", "version": "0.0.1"}}, "")
	th := call(2, "thread/start", map[string]any{"cwd": t.TempDir(), "approvalPolicy": "never", "sandbox": "read-only"}, "")
	id := th["thread"].(map[string]any)["id"]
	call(3, "turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "Say hello to codexrec."}}}, "turn/completed")
	in.Close()
	for sc.Scan() {
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("the stand-in exited: %v", err)
	}
	if text.Len() == 0 {
		t.Error("no agent message in the replayed turn")
	}
}
`)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CODEXREC_BIN=") && !strings.HasPrefix(kv, "GOFLAGS=") {
			env = append(env, kv)
		}
	}
	// The binary Binary builds goes to a cache of this test's own.
	env = append(env, "GOPROXY=off", "GOSUMDB=off", "GOCACHE="+vars[0], "GOMODCACHE="+vars[1], "GOPATH="+vars[2],
		"XDG_CACHE_HOME="+t.TempDir(), "HOME="+t.TempDir())
	for _, args := range [][]string{{"mod", "tidy"}, {"test", "-count=1", "-v", "./..."}} {
		cmd := exec.Command(goCmd, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		if args[0] == "test" && (!strings.Contains(string(out), "--- PASS: TestBinary") || !strings.Contains(string(out), "--- PASS: TestShim")) {
			t.Fatalf("go test ran not both of the user's tests:\n%s", out)
		}
	}
}
