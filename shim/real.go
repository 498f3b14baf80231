package shim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ErrNoCodex: no real codex binary was found.
var ErrNoCodex = errors.New("no real codex found")

// Marker is in every script Install writes; FindReal never picks such a file.
const Marker = "codexrec shim"

// FindReal returns the real codex for a shim started as self (its argv[0] or path):
// CODEXREC_CODEX when set, else the first `codex` on PATH after the directory self
// was found in (all of PATH when self was not found there), never self, a codexrec
// executable or another shim script.
func FindReal(self string, getenv func(string) string) (string, error) {
	if p := getenv("CODEXREC_CODEX"); p != "" {
		if isShim(p) {
			return "", fmt.Errorf("CODEXREC_CODEX=%s is a codexrec shim, not the real codex", p)
		}
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("CODEXREC_CODEX: %w", err)
		}
		return p, nil
	}
	dirs := filepath.SplitList(getenv("PATH"))
	selfDir := ""
	if strings.ContainsRune(self, filepath.Separator) {
		selfDir = filepath.Dir(self)
	} else if p, ok := lookIn(dirs, self); ok {
		selfDir = filepath.Dir(p)
	}
	start := 0
	for i, d := range dirs {
		if selfDir != "" && sameDir(d, selfDir) {
			start = i + 1
			break
		}
	}
	for _, d := range dirs[start:] {
		p := filepath.Join(d, exeName("codex"))
		if !isExecutable(p) || isShim(p) {
			continue
		}
		return p, nil
	}
	return "", fmt.Errorf("%w on PATH after %s (set CODEXREC_CODEX to the real binary)", ErrNoCodex, orDot(selfDir))
}

func orDot(d string) string {
	if d == "" {
		return "the shim"
	}
	return d
}

func lookIn(dirs []string, name string) (string, bool) {
	for _, d := range dirs {
		p := filepath.Join(d, exeName(name))
		if isExecutable(p) {
			return p, true
		}
	}
	return "", false
}

func sameDir(a, b string) bool {
	if a == "" {
		a = "."
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && (fi.Mode()&0o111 != 0 || isWindows)
}

// isShim reports whether p is this codexrec (through a symlink) or a script that
// runs codexrec as a shim.
func isShim(p string) bool {
	fi, err := os.Stat(p)
	if err != nil {
		return false
	}
	if exe, err := os.Executable(); err == nil {
		if fe, err := os.Stat(exe); err == nil && os.SameFile(fi, fe) {
			return true
		}
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	return bytes.Contains(head[:n], []byte(Marker))
}

// Config is what a shim script fixes for its sessions; the environment gives what it
// leaves empty.
type Config struct {
	Mode string // CODEXREC_MODE
	Dir  string // CODEXREC_DIR: recordings named by the naming rule
	File string // one recording for every session (a test's shim)
	Real string // CODEXREC_CODEX
	// Report is a file the shim appends the replay's diagnostics and a failed
	// session's error to, besides stderr (a test helper shows it).
	Report string
}

// Install writes dir/codex, a script that runs codexrec (the executable at
// codexrec) as the shim with cfg, and returns its path. An existing file that is not
// a shim is left alone (an error).
func Install(dir, codexrec string, cfg Config) (string, error) {
	if isWindows {
		return "", errors.New("the codex shim script needs a POSIX shell; on Windows point the client's codex path at a copy of codexrec named codex.exe")
	}
	abs, err := filepath.Abs(codexrec)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, "codex")
	if _, err := os.Lstat(p); err == nil && !isShim(p) {
		return "", fmt.Errorf("%s exists and is not a codexrec shim; not replacing it", p)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/sh\n# codex: the %s (codexrec shim install); remove this file to remove it.\n", Marker)
	fmt.Fprintf(&b, "exec %s shim exec --self \"$0\"", shQuote(abs))
	for _, f := range []struct{ flag, v string }{{"--mode", cfg.Mode}, {"--dir", cfg.Dir}, {"--file", cfg.File}, {"--codex", cfg.Real}, {"--report", cfg.Report}} {
		if f.v != "" {
			v := f.v
			if f.flag != "--mode" {
				if v, err = filepath.Abs(v); err != nil {
					return "", err
				}
			}
			fmt.Fprintf(&b, " %s %s", f.flag, shQuote(v))
		}
	}
	b.WriteString(" -- \"$@\"\n")
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o755); err != nil {
		return "", err
	}
	return p, os.Rename(tmp, p)
}

func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
