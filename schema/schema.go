// Package schema knows the app-server protocol of each pinned Codex version, from the
// JSON Schemas the real binary generates, and checks messages against it: Validator
// routes each frame by direction, kind and method to that method's schema alone and
// reports findings with a JSON pointer and a one-line reason. It does not read or
// write recordings and never changes a message.
package schema

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

//go:embed versions/manifest.json versions/*/*.sha256 versions/methods.json
var embedded embed.FS

// objectsZip is versions/objects.zip, read in place (embed.FS.ReadFile would copy its
// megabyte on every load).
//
//go:embed versions/objects.zip
var objectsZip string

// Stable and Experimental name a version's two schema sets: what
// `generate-json-schema` writes without and with --experimental.
const (
	Stable       = "stable"
	Experimental = "experimental"
)

// Sentinel errors.
var (
	ErrUnknownVersion = errors.New("no embedded schema for this codex version")
	ErrBadVersion     = errors.New("not a codex version")
)

// manifest is versions/manifest.json, written by internal/schemagen.
type manifest struct {
	Versions []struct {
		Version string `json:"version"`
		Sets    map[string]struct {
			List   string `json:"list"`
			Files  int    `json:"files"`
			Bytes  int64  `json:"bytes"`
			SHA256 string `json:"sha256"`
		} `json:"sets"`
	} `json:"versions"`
}

var readManifest = sync.OnceValues(func() (*manifest, error) {
	b, err := embedded.ReadFile("versions/manifest.json")
	if err != nil {
		return nil, fmt.Errorf("schema: embedded manifest: %w", err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("schema: embedded manifest: %w", err)
	}
	return &m, nil
})

// Embedded lists the Codex versions whose schemas are built in, oldest first.
func Embedded() []string {
	m, err := readManifest()
	if err != nil {
		return nil
	}
	var out []string
	for _, v := range m.Versions {
		out = append(out, v.Version)
	}
	sort.Slice(out, func(i, j int) bool { return compareVersions(out[i], out[j]) < 0 })
	return out
}

// Nearest returns the embedded version to use for version: version itself when it is
// embedded, else the newest embedded version older than it. exact says which. It fails
// with ErrUnknownVersion when version is older than every embedded one.
func Nearest(version string) (v string, exact bool, err error) {
	if _, ok := parseVersion(version); !ok {
		return "", false, fmt.Errorf("schema: %q: %w", version, ErrBadVersion)
	}
	for _, e := range Embedded() {
		c := compareVersions(e, version)
		if c == 0 {
			return e, true, nil
		}
		if c < 0 {
			v = e
		}
	}
	if v == "" {
		return "", false, fmt.Errorf("schema: codex %s is older than every embedded version (%s): %w",
			version, strings.Join(Embedded(), ", "), ErrUnknownVersion)
	}
	return v, false, nil
}

// Load returns the embedded schemas of exactly version (see Nearest for the fallback).
// Loading only reads the set's file lists and the method table; each method's schema is
// compiled the first time a message needs it.
func Load(version string) (*Set, error) {
	m, err := readManifest()
	if err != nil {
		return nil, err
	}
	objects, err := readObjects()
	if err != nil {
		return nil, err
	}
	for _, v := range m.Versions {
		if v.Version != version {
			continue
		}
		var fsys [2]fs.FS
		for i, mode := range []string{Stable, Experimental} {
			s, ok := v.Sets[mode]
			if !ok {
				return nil, fmt.Errorf("schema: codex %s: manifest has no %s set", version, mode)
			}
			b, err := embedded.ReadFile("versions/" + s.List)
			if err != nil {
				return nil, fmt.Errorf("schema: codex %s: %w", version, err)
			}
			lfs, err := newListFS(b, objects)
			if err != nil {
				return nil, fmt.Errorf("schema: codex %s: %s: %w", version, s.List, err)
			}
			fsys[i] = lfs
		}
		return newSet(version, fsys[0], fsys[1], true)
	}
	return nil, fmt.Errorf("schema: codex %s (embedded: %s): %w", version, strings.Join(Embedded(), ", "), ErrUnknownVersion)
}

// LoadDir loads a set a user generated with `codex app-server generate-json-schema
// --out DIR`. When DIR holds stable/ and experimental/ subdirectories (as the embedded
// sets are laid out) both are used; otherwise DIR is used as both sets, so nothing can
// be told apart as experimental. version is recorded as the set's version ("" if
// unknown).
func LoadDir(dir, version string) (*Set, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("schema dir: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("schema dir %s: not a directory", dir)
	}
	root := os.DirFS(dir)
	stable, exp := root, root
	if isDir(dir+"/"+Stable) && isDir(dir+"/"+Experimental) {
		stable, exp = os.DirFS(dir+"/"+Stable), os.DirFS(dir+"/"+Experimental)
	}
	s, err := newSet(version, stable, exp, false)
	if err != nil {
		return nil, fmt.Errorf("schema dir %s: %w", dir, err)
	}
	return s, nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// Set is one Codex version's protocol: its raw schema files and the method table
// derived from them. A Set is safe for concurrent use; Validators built on it share
// its compiled schemas.
type Set struct {
	version string
	fsys    [2]fs.FS             // stable, experimental
	index   [2]map[string]string // type name ("TurnStartResponse") to file path
	methods map[routeKey]*Method
	list    []Method

	// routes are the compiled routes, per method (by Method.idx) and for error
	// responses; read without the lock, built under it.
	routes    []routeSlots
	errRoutes [2]atomic.Pointer[route] // by mode

	// embedded says the files are this program's own: each known to be JSON
	// (TestEmbeddedFilesAreJSON), parsed without checking it first, and to hold
	// valid schemas, so a route is compiled only when a message needs it. A user's
	// (LoadDir) may not be either: their files are checked, and every route is
	// compiled when it is built.
	embedded bool

	mu   sync.Mutex
	docs map[string]any // parsed schema files, by mode-prefixed path
	comp *compiler
	fb   *fbuilder
}

// routeSlots holds one method's routes by mode (stable, experimental) and by what is
// checked (0: the request or notification, 1: the response to it).
type routeSlots [2][2]atomic.Pointer[route]

// Version is the Codex version the set was generated by ("" for an unnamed LoadDir).
func (s *Set) Version() string { return s.version }

// FS is the raw files of the stable or the experimental set, exactly as
// `generate-json-schema` wrote them (ClientRequest.json, v2/TurnStartParams.json, ...).
func (s *Set) FS(experimental bool) fs.FS {
	if experimental {
		return s.fsys[1]
	}
	return s.fsys[0]
}

// File returns one raw file of the stable or experimental set.
func (s *Set) File(name string, experimental bool) ([]byte, error) {
	return fs.ReadFile(s.FS(experimental), path.Clean(name))
}

// parseVersion splits "0.171.0" (or "0.171.0-alpha.2", ignoring the suffix) into numbers.
func parseVersion(v string) ([]int, bool) {
	if i := strings.IndexAny(v, "-+ "); i >= 0 {
		v = v[:i]
	}
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		return nil, false
	}
	out := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

// compareVersions orders versions numerically; unparsable ones sort first.
func compareVersions(a, b string) int {
	pa, _ := parseVersion(a)
	pb, _ := parseVersion(b)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		if pa[i] != pb[i] {
			if pa[i] < pb[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(pa) < len(pb):
		return -1
	case len(pa) > len(pb):
		return 1
	}
	return 0
}
