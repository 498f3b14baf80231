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

// IsStandin reports whether a program started as argv0 (its argv[0] or path) is
// named as codex is, codex or codex.exe: a stand-in the client runs in codex's place.
func IsStandin(argv0 string) bool {
	b := filepath.Base(argv0)
	return b == "codex" || b == "codex.exe"
}

// FindReal returns the real codex for a shim started as self (its argv[0] or path):
// CODEXREC_CODEX when set, else the first `codex` on PATH after the directory self
// was found in (all of PATH when self was not found there), never self, a codexrec
// executable or another shim script.
func FindReal(self string, getenv func(string) string) (string, error) {
	if p := getenv("CODEXREC_CODEX"); p != "" {
		if isShim(p) {
			return "", fmt.Errorf("CODEXREC_CODEX=%s is a stand-in for codex, not the real one", p)
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

// ErrNoShell: Install writes a POSIX shell script, which Windows cannot run.
var ErrNoShell = errors.New("a stand-in script needs a POSIX shell")

// Self stands, in the command Install writes, for the path the script was started
// as ($0).
const Self = "\x00self"

// Install writes dir/codex, a script that runs command with the arguments it was
// given appended (Self in command is the script's own path), and returns its path.
// The command is the caller's: codexrec's own shim command line, say. An existing
// file that is not a shim is left alone (an error).
func Install(dir string, command []string) (string, error) {
	if isWindows {
		return "", ErrNoShell
	}
	if len(command) == 0 {
		return "", errors.New("no command for the shim script")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, "codex")
	if _, err := os.Lstat(p); err == nil && !isShim(p) {
		return "", fmt.Errorf("%s exists and is not a stand-in script; not replacing it", p)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/sh\n# codex: the %s; remove this file to remove it.\nexec", Marker)
	for _, a := range command {
		if a == Self {
			b.WriteString(` "$0"`)
		} else {
			b.WriteString(" " + shQuote(a))
		}
	}
	b.WriteString(" \"$@\"\n")
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o755); err != nil {
		return "", err
	}
	return p, os.Rename(tmp, p)
}

func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
