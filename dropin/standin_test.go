package dropin_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/dropin"
	"github.com/codexrec/codexrec/shim"
)

func TestStandin(t *testing.T) {
	env := map[string]string{"CODEXREC_MODE": "replay", "CODEXREC_DIR": "from-env"}
	getenv := func(k string) string { return env[k] }

	st := dropin.Standin{Getenv: getenv}
	if m, err := st.ParseMode(); err != nil || m != shim.ModeReplay {
		t.Errorf("mode from the environment: %v, %v", m, err)
	}
	st.Mode = "passthrough" // fixed by the script: the environment is not read
	if m, err := st.ParseMode(); err != nil || m != shim.ModePassthrough {
		t.Errorf("fixed mode: %v, %v", m, err)
	}

	for _, tc := range []struct {
		st        dropin.Standin
		mode      shim.Mode
		file, dir string
		wantNoDir bool
	}{
		{dropin.Standin{Getenv: getenv}, shim.ModeRecord, "", "from-env", false},
		{dropin.Standin{Dir: "fixed", Getenv: getenv}, shim.ModeRecord, "", "fixed", false},
		{dropin.Standin{File: "one.jsonl", Dir: "fixed", Getenv: getenv}, shim.ModeRecord, "one.jsonl", "", false},
		{dropin.Standin{Getenv: func(string) string { return "" }}, shim.ModePassthrough, "", "", false},
		{dropin.Standin{Getenv: func(string) string { return "" }}, shim.ModeRecord, "", "", true},
	} {
		s := &dropin.Session{Mode: tc.mode}
		err := tc.st.Target(s)
		if errors.Is(err, dropin.ErrNoDir) != tc.wantNoDir || s.File != tc.file || s.Dir != tc.dir {
			t.Errorf("%+v: file %q dir %q err %v; want %q %q (no dir: %v)", tc.st, s.File, s.Dir, err, tc.file, tc.dir, tc.wantNoDir)
		}
	}
}

// TestStandinReal: a fixed Codex wins over CODEXREC_CODEX.
func TestStandinReal(t *testing.T) {
	dir := t.TempDir()
	fixed := filepath.Join(dir, "codex")
	if err := os.WriteFile(fixed, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := func(k string) string {
		if k == "CODEXREC_CODEX" {
			return filepath.Join(dir, "missing")
		}
		return ""
	}
	if p, err := (dropin.Standin{Codex: fixed, Getenv: env}).Real("codex"); err != nil || p != fixed {
		t.Errorf("fixed codex: %q, %v; want %q", p, err, fixed)
	}
	if _, err := (dropin.Standin{Getenv: env}).Real("codex"); err == nil {
		t.Error("CODEXREC_CODEX naming a missing file: no error")
	}
}

// TestStandinSettings: the record and replay settings and the report file a
// stand-in reads from its environment, unless the report is fixed.
func TestStandinSettings(t *testing.T) {
	env := map[string]string{dropin.ReplayFlagsEnv: "  --unordered\t--match method ", "CODEXREC_LOG": "env.log"}
	st := dropin.Standin{Getenv: func(k string) string { return env[k] }}
	if got := st.ReplayArgs(); len(got) != 3 || got[0] != "--unordered" || got[2] != "method" {
		t.Errorf("ReplayArgs %q", got)
	}
	if got := st.RecordArgs(); len(got) != 0 {
		t.Errorf("RecordArgs %q, want none when unset", got)
	}
	if got := st.ReportFile(); got != "env.log" {
		t.Errorf("ReportFile %q, want the environment's", got)
	}
	st.Report = "fixed.log"
	if got := st.ReportFile(); got != "fixed.log" {
		t.Errorf("ReportFile %q, want the fixed one", got)
	}
}

// TestStandinInstall: Install writes the script of the command line given for the
// settings made absolute; a mode that does not parse is a *SettingError of Mode
// and writes nothing.
func TestStandinInstall(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a stand-in script needs a POSIX shell")
	}
	dir := t.TempDir()
	var got dropin.Standin
	p, err := dropin.Standin{Mode: "replay", Dir: "rec"}.Install(dir, func(st dropin.Standin) []string {
		got = st
		return []string{"/bin/echo", "--dir", st.Dir, "--"}
	})
	wd, _ := os.Getwd()
	if err != nil || p != filepath.Join(dir, "codex") || got.Dir != filepath.Join(wd, "rec") || got.Mode != "replay" {
		t.Fatalf("Install: %q, %v; command given %+v", p, err, got)
	}
	if b, err := os.ReadFile(p); err != nil || !strings.Contains(string(b), filepath.Join(wd, "rec")) {
		t.Errorf("script %q, %v: want the command with the absolute dir", b, err)
	}
	empty := t.TempDir()
	_, err = dropin.Standin{Mode: "sometimes"}.Install(empty, func(dropin.Standin) []string { t.Error("command asked for a bad mode"); return nil })
	var se *dropin.SettingError
	if !errors.As(err, &se) || se.Setting != "Mode" {
		t.Errorf("bad mode: %v, want a *SettingError of Mode", err)
	}
	if names, _ := os.ReadDir(empty); len(names) > 0 {
		t.Errorf("a bad mode wrote %v", names)
	}
}
