package main_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestStandinMessages: the stand-in's refusals (shim install over a foreign codex,
// a CODEXREC_CODEX naming a stand-in) come from the shim library in product terms:
// after the command's prefix, the message names neither the binary nor a flag.
func TestStandinMessages(t *testing.T) {
	dir := t.TempDir()
	foreign := filepath.Join(dir, "foreign")
	if err := os.MkdirAll(foreign, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(foreign, "codex"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := runCodexrec(t, dir, nil, "shim", "install", foreign)
	productTerms(t, r, "codexrec shim: ", filepath.Join(foreign, "codex")+" exists and is not a stand-in script; not replacing it")

	bin := filepath.Join(dir, "bin")
	if r := runCodexrec(t, dir, nil, "shim", "install", bin); r.code != 0 {
		t.Fatalf("shim install: exit %d\n%s", r.code, r.stderr)
	}
	script := filepath.Join(bin, "codex")
	cmd := exec.Command(script, "app-server")
	cmd.Env = append(os.Environ(), "CODEXREC_MODE=passthrough", "CODEXREC_CODEX="+script)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	productTerms(t, result{out.Bytes(), errb.Bytes(), code}, "codexrec (as codex): ", "CODEXREC_CODEX="+script+" is a stand-in for codex, not the real one")
}

// productTerms checks that r is exit 2 with the one line prefix+msg, and that msg
// says neither codexrec (but in a path) nor a flag.
func productTerms(t *testing.T, r result, prefix, msg string) {
	t.Helper()
	if r.code != 2 || string(r.stderr) != prefix+msg+"\n" {
		t.Errorf("exit %d, stderr %q, want 2 and %q", r.code, r.stderr, prefix+msg+"\n")
	}
	words := strings.Fields(msg)
	for _, w := range words {
		if !strings.Contains(w, "/") && (strings.Contains(w, "codexrec") || strings.HasPrefix(w, "-")) {
			t.Errorf("library message %q says %q", msg, w)
		}
	}
}

// TestShimInstallBadMode: the built binary refuses a --mode that does not parse
// (dropin.Standin.Install's SettingError, said as the flag) and writes no script.
func TestShimInstallBadMode(t *testing.T) {
	dir := t.TempDir()
	r := runCodexrec(t, "", nil, "shim", "install", "--mode", "sometimes", dir)
	if r.code != 2 || !strings.Contains(string(r.stderr), "codexrec shim: --mode: ") || !strings.Contains(string(r.stderr), "see codexrec help shim") {
		t.Errorf("exit %d, stderr %q; want 2 and the --mode usage error", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "codex")); err == nil {
		t.Error("a refused install wrote the script")
	}
}
