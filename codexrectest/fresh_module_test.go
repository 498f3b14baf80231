package codexrectest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFreshModule uses codexrectest the way a user does: a new module that requires
// codexrec (here through a replace directive to this checkout), go mod tidy, go
// test. The user's test builds the codexrec command inside that module, which works
// only when tidy put every module the command imports in the user's go.sum.
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
	write("user_test.go", `package user

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/codexrectest"
)

func TestBinary(t *testing.T) {
	out, err := exec.Command(codexrectest.Binary(t), "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "codexrec ") {
		t.Fatalf("%v: %s", err, out)
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
	for _, args := range [][]string{{"mod", "tidy"}, {"test", "-count=1", "./..."}} {
		cmd := exec.Command(goCmd, args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
