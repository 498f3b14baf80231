package main_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// codexrecBin is the codexrec binary built once for every end-to-end test of this
// package: the command is tested by running it, as users do.
var codexrecBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "codexrec-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	codexrecBin = filepath.Join(dir, "codexrec")
	buildArgs := []string{"build", "-race", "-o", codexrecBin, "."}
	flag.Parse()
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		// Benchmarks measure the binary users run, not the race detector.
		buildArgs = []string{"build", "-o", codexrecBin, "."}
	}
	build := exec.Command("go", buildArgs...)
	if buildArgs[1] != "-race" { // -race needs cgo; make build's binary is static
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
	}
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building codexrec:", err)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what a run of the built binary produced.
type result struct {
	stdout, stderr []byte
	code           int
}

// runCodexrec runs the built binary with args and stdin, in dir when not empty.
func runCodexrec(t testing.TB, dir string, stdin io.Reader, args ...string) result {
	t.Helper()
	cmd := exec.Command(codexrecBin, args...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("running codexrec %v: %v", args, err)
	}
	return result{out.Bytes(), errb.Bytes(), code}
}
