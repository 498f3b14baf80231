// Package codexbin finds and installs the real codex binaries: the native executable
// of an @openai/codex platform package from the npm registry, unpacked into a cache
// directory (one folder per version). It downloads only when Install is called, checks
// the registry's sha512 integrity before anything lands in the cache, and never runs
// npm or node.
package codexbin

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// ErrNotInstalled is returned when a version's binary is not in any cache.
var ErrNotInstalled = errors.New("codex binary not installed")

// CacheEnv names the environment variable that overrides the cache directory.
const CacheEnv = "CODEXREC_CACHE"

// CacheDir is where Install puts binaries by default: $CODEXREC_CACHE when set, else
// codexrec/codex under the user's cache directory (os.UserCacheDir).
func CacheDir() (string, error) {
	if c := os.Getenv(CacheEnv); c != "" {
		return c, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for codex binaries (set %s): %w", CacheEnv, err)
	}
	return filepath.Join(d, "codexrec", "codex"), nil
}

// Caches are the directories Find looks in, in order: CacheDir, then .cache/codex of
// the codexrec module the working directory is in (a clone's own cache).
func Caches() []string {
	var out []string
	if c, err := CacheDir(); err == nil {
		out = append(out, c)
	}
	if root, err := ModuleRoot(); err == nil {
		if c := filepath.Join(root, ".cache", "codex"); !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// BinaryIn is the path the binary of version for the running platform has in cache.
func BinaryIn(cache, version string) string {
	p, _ := HostPlatform()
	return p.binaryIn(cache, version)
}

// Find returns the path of the native codex binary of version for the running
// platform. It looks in CacheDir, then in .cache/codex of the codexrec module the
// working directory is in.
func Find(version string) (string, error) {
	if err := checkVersion(version); err != nil {
		return "", err
	}
	plat, err := HostPlatform()
	if err != nil {
		return "", err
	}
	tried := Caches()
	for _, c := range tried {
		p := plat.binaryIn(c, version)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: codex %s (looked in %s)", ErrNotInstalled, version, strings.Join(tried, ", "))
}

// Installed lists the versions with a binary for the running platform in cache,
// sorted by version.
func Installed(cache string) ([]string, error) {
	plat, err := HostPlatform()
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(cache)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if fi, err := os.Stat(plat.binaryIn(cache, e.Name())); err == nil && fi.Mode().IsRegular() {
			out = append(out, e.Name())
		}
	}
	slices.SortFunc(out, compareVersions)
	return out, nil
}

// compareVersions orders dotted versions numerically where they are numbers.
func compareVersions(a, b string) int {
	as, bs := strings.FieldsFunc(a, isSep), strings.FieldsFunc(b, isSep)
	for i := 0; i < len(as) && i < len(bs); i++ {
		var x, y int
		_, ex := fmt.Sscanf(as[i], "%d", &x)
		_, ey := fmt.Sscanf(bs[i], "%d", &y)
		if ex == nil && ey == nil && x != y {
			return x - y
		}
		if c := strings.Compare(as[i], bs[i]); (ex != nil || ey != nil) && c != 0 {
			return c
		}
	}
	return len(as) - len(bs)
}

func isSep(r rune) bool { return r == '.' || r == '-' }

// checkVersion refuses a version that could not be an npm version or would escape
// the cache directory as a path.
func checkVersion(v string) error {
	if v == "" || v == "." || v == ".." || strings.HasPrefix(v, ".") {
		return fmt.Errorf("codex version %q: not a version", v)
	}
	for _, r := range v {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '.' || r == '-' || r == '+') {
			return fmt.Errorf("codex version %q: not a version (unexpected %q)", v, r)
		}
	}
	return nil
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
			return "", errors.New("no go.mod of this module in the working directory or above it")
		}
		dir = parent
	}
}
