package sanitize

import (
	"path/filepath"
	"strings"
)

// DefaultSecretEnvs returns the environment variables whose values are known
// secrets unless the caller says otherwise (a new slice each call).
func DefaultSecretEnvs() []string {
	return []string{"OPENAI_API_KEY", "CODEX_API_KEY", "ACCESS_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"}
}

// Placeholders of the default path maps.
const (
	PlaceholderCwd       = "<cwd>"
	PlaceholderHome      = "<home>"
	PlaceholderTmp       = "<tmp>"
	PlaceholderCodexHome = "<codex-home>"
)

// DefaultMaps maps the client's working directory, CODEX_HOME (or ~/.codex), the home
// directory and the temporary directory to placeholders, each also under the name its
// symbolic links resolve to. Earlier maps win when two name the same directory.
func DefaultMaps(cwd string, getenv func(string) string) []Map {
	home := getenv("HOME")
	codexHome := getenv("CODEX_HOME")
	if codexHome == "" && home != "" {
		codexHome = filepath.Join(home, ".codex")
	}
	tmp := getenv("TMPDIR")
	if tmp == "" {
		tmp = "/tmp"
	}
	var maps []Map
	for _, m := range []Map{{codexHome, PlaceholderCodexHome}, {cwd, PlaceholderCwd}, {tmp, PlaceholderTmp}, {home, PlaceholderHome}} {
		maps = appendPathMap(maps, m)
	}
	return maps
}

// appendPathMap adds m (cleaned, and its symlink-resolved form) unless its path is
// empty, the root, or already mapped.
func appendPathMap(maps []Map, m Map) []Map {
	if m.From == "" {
		return maps
	}
	froms := []string{filepath.Clean(m.From)}
	if r, err := filepath.EvalSymlinks(m.From); err == nil && r != froms[0] {
		froms = append(froms, r)
	}
next:
	for _, f := range froms {
		if len(f) < 2 || strings.Trim(f, "/") == "" {
			continue
		}
		for _, o := range maps {
			if o.From == f {
				continue next
			}
		}
		maps = append(maps, Map{From: f, To: m.To})
	}
	return maps
}

// WithPathMap puts a map (and its symlink-resolved form) in front of maps, replacing
// any map of the same path: how capture maps its temporary workspace and CODEX_HOME.
func WithPathMap(maps []Map, from, to string) []Map {
	out := appendPathMap(nil, Map{From: from, To: to})
	for _, m := range maps {
		dup := false
		for _, o := range out {
			dup = dup || o.From == m.From
		}
		if !dup {
			out = append(out, m)
		}
	}
	return out
}
