package codexbin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
)

// RegistryEnv names the environment variable that overrides DefaultRegistry.
const RegistryEnv = "CODEXREC_NPM_REGISTRY"

// Registry is the npm registry to download from: $CODEXREC_NPM_REGISTRY when set,
// else DefaultRegistry.
func Registry() string {
	if r := os.Getenv(RegistryEnv); r != "" {
		return r
	}
	return DefaultRegistry
}

// A Binary is an installed codex: its version and the path of its executable.
type Binary struct {
	Version, Path string
}

// List returns the binaries for the running platform in the Caches, by cache then
// version (a version in two caches once, from the first, as Find takes it), and
// the pinned Versions none of them holds, sorted.
func List() (found []Binary, missing []string, err error) {
	seen := map[string]bool{}
	for _, d := range Caches() {
		vs, err := Installed(d)
		if err != nil {
			return nil, nil, err
		}
		for _, v := range vs {
			if !seen[v] {
				seen[v] = true
				found = append(found, Binary{v, BinaryIn(d, v)})
			}
		}
	}
	for _, v := range Versions {
		if !seen[v] {
			missing = append(missing, v)
		}
	}
	sort.Strings(missing)
	return found, missing, nil
}

// An Entry is a version in a listing (Entries): installed at Path, or pinned
// (Versions) but not installed.
type Entry struct {
	Version   string `json:"version"`
	Path      string `json:"path,omitempty"`
	Installed bool   `json:"installed"`
}

// WriteList writes List on w: one "VERSION  PATH" line per installed binary, or
// with asJSON a JSON array of Entry, pinned versions not installed too. It returns
// the pinned versions not installed.
func WriteList(w io.Writer, asJSON bool) (missing []string, err error) {
	found, missing, err := List()
	if err != nil {
		return nil, err
	}
	if asJSON {
		all := []Entry{}
		for _, b := range found {
			all = append(all, Entry{b.Version, b.Path, true})
		}
		for _, v := range missing {
			all = append(all, Entry{Version: v})
		}
		return missing, json.NewEncoder(w).Encode(all)
	}
	for _, b := range found {
		fmt.Fprintf(w, "%-10s %s\n", b.Version, b.Path)
	}
	return missing, nil
}

// A PlatformError is a platform name PlatformNamed does not know; Known are the
// names it does.
type PlatformError struct {
	Name  string
	Known []string
}

func (e *PlatformError) Error() string {
	return fmt.Sprintf("%q: want one of %s", e.Name, strings.Join(e.Known, ", "))
}

// PlatformNamed returns the platform npm names name ("linux-x64"), or a
// *PlatformError.
func PlatformNamed(name string) (*Platform, error) {
	i := slices.IndexFunc(Platforms, func(p Platform) bool { return p.NPM == name })
	if i < 0 {
		known := make([]string, len(Platforms))
		for j, p := range Platforms {
			known[j] = p.NPM
		}
		return nil, &PlatformError{name, known}
	}
	return &Platforms[i], nil
}

// FindOrInstall returns the binary of version (Find), installing it with o first
// when it is not installed and install is set; otherwise a missing version is an
// error wrapping ErrNotInstalled.
func FindOrInstall(ctx context.Context, version string, install bool, o Options) (string, error) {
	p, err := Find(version)
	if err == nil || !install || !errors.Is(err, ErrNotInstalled) {
		return p, err
	}
	inst, err := Install(ctx, version, o)
	if err != nil {
		return "", err
	}
	return inst.Path, nil
}
