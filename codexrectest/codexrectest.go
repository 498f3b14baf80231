// Package codexrectest gives a Go test a `codex` executable that records or replays
// through codexrec, so a client library that takes a codex path runs against a
// recording without an account or a network. It does not drive a client itself, and
// it needs a codexrec binary: CODEXREC_BIN when set, otherwise one `go build` of
// github.com/codexrec/codexrec/cmd/codexrec per test process (the go command and the
// module's dependencies must be at hand, as they are for `go test`).
package codexrectest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/codexrec/codexrec/shim"
)

// Shim returns the path of a `codex` executable for this test, in a directory removed
// when the test ends. An app-server session through it records into recording or
// replays it, as mode decides (shim.ModeAuto honours CI: it never records there);
// every other invocation runs the real codex (CODEXREC_CODEX, else the next codex on
// PATH). When the test ends, a session that failed (a replay mismatch, a missing
// recording) fails the test with what the replay said; a replay's notes on a session
// that passed are logged.
func Shim(t testing.TB, recording string, mode shim.Mode) string {
	t.Helper()
	bin, err := filepath.Abs(Binary(t))
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(recording)
	if err != nil {
		t.Fatal(err)
	}
	if mode == shim.ModeRecord || mode == shim.ModeAuto {
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	report := filepath.Join(dir, "report.txt")
	// The script runs codexrec's shim command with the recording and report fixed.
	p, err := shim.Install(filepath.Join(dir, "bin"), []string{bin, "shim", "exec", "--self", shim.Self,
		"--mode", mode.String(), "--file", abs, "--report", report, "--"})
	if err != nil {
		t.Fatalf("codexrectest: %v", err)
	}
	t.Cleanup(func() {
		b, err := os.ReadFile(report)
		if err != nil || len(b) == 0 {
			return
		}
		if failed(b) {
			t.Errorf("codexrectest: the codex shim (%s %s) failed:\n%s", mode, recording, b)
		} else {
			t.Logf("codexrectest: the codex shim (%s %s) said:\n%s", mode, recording, b)
		}
	})
	return p
}

// failed reports whether a shim's report holds a failed session.
func failed(report []byte) bool {
	return bytes.Contains(report, []byte("codexrec (as codex): exit "))
}

var (
	buildOnce sync.Once
	built     string
	buildErr  error
)

// Binary returns the codexrec executable the shims run: CODEXREC_BIN, or one built
// once per test process into the user's cache directory (replaced atomically, so
// test processes running at once each get a whole binary).
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("CODEXREC_BIN"); p != "" {
		return p
	}
	buildOnce.Do(func() { built, buildErr = build() })
	if buildErr != nil {
		t.Fatalf("codexrectest: %v (set CODEXREC_BIN to a codexrec binary instead)", buildErr)
	}
	return built
}

func build() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "codexrec-test")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	name := "codexrec"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	tmp, err := os.CreateTemp(dir, name+".*")
	if err != nil {
		return "", err
	}
	tmp.Close()
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goCmd); err != nil {
		goCmd = "go"
	}
	cmd := exec.Command(goCmd, "build", "-o", tmp.Name(), "github.com/codexrec/codexrec/cmd/codexrec")
	// Static (no cgo): each session the suite runs starts about a millisecond sooner.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("go build github.com/codexrec/codexrec/cmd/codexrec: %v\n%s", err, strings.TrimSpace(out.String()))
	}
	p := filepath.Join(dir, name)
	if err := os.Rename(tmp.Name(), p); err != nil {
		return "", err
	}
	return p, nil
}
