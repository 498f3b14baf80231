// Package codexbin finds the real codex binaries that scripts/install-codex.sh put in
// the git-ignored cache. It never downloads anything: a missing binary is an error that
// says which command installs it.
package codexbin

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Versions are the Codex versions the project pins: the product integration's version
// and the newest served one.
var Versions = []string{"0.163.0", "0.171.0"}

// Oldest and Newest name the ends of Versions.
var (
	Oldest = Versions[0]
	Newest = Versions[len(Versions)-1]
)

// ErrNotInstalled is returned when a version's binary is not in the cache.
var ErrNotInstalled = errors.New("codex binary not installed")

// Find returns the path of the native codex binary of version. It looks in
// $CODEXREC_CACHE, then in .cache/codex of the first directory at or above the current
// directory that has a go.mod with the codexrec module.
func Find(version string) (string, error) {
	rel := filepath.Join(version, "package", "vendor", triple(), "bin", "codex")
	var tried []string
	if c := os.Getenv("CODEXREC_CACHE"); c != "" {
		tried = append(tried, filepath.Join(c, rel))
	}
	if root, err := ModuleRoot(); err == nil {
		tried = append(tried, filepath.Join(root, ".cache", "codex", rel))
	}
	for _, p := range tried {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: codex %s (scripts/install-codex.sh %s installs it)", ErrNotInstalled, version, version)
}

// ModuleRoot is the nearest directory at or above the working directory holding the
// codexrec go.mod.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.HasPrefix(string(b), "module github.com/codexrec/codexrec\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the codexrec module")
		}
		dir = parent
	}
}

func triple() string {
	if runtime.GOARCH == "arm64" {
		return "aarch64-unknown-linux-musl"
	}
	return "x86_64-unknown-linux-musl"
}
