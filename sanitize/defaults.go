package sanitize

import (
	"os"
	"path/filepath"
	"strings"
)

// DefaultSecretEnvs are the environment variables whose values are known secrets
// unless the caller says otherwise.
var DefaultSecretEnvs = []string{"OPENAI_API_KEY", "CODEX_API_KEY", "ACCESS_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"}

// Placeholders of the default path maps.
const (
	PlaceholderCwd       = "<cwd>"
	PlaceholderHome      = "<home>"
	PlaceholderTmp       = "<tmp>"
	PlaceholderCodexHome = "<codex-home>"
)

// SecretsFromEnv returns the values of the named variables that are set (shorter ones
// than MinSecretLen too: New reports them).
func SecretsFromEnv(getenv func(string) string, names []string) []Secret {
	var out []Secret
	for _, n := range names {
		if v := getenv(n); v != "" {
			out = append(out, Secret{Name: n, Value: v})
		}
	}
	return out
}

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

// Defaults are the options record uses: the default secret variables from the
// environment and the default path maps for the working directory cwd.
func Defaults(cwd string) Options {
	return Options{Secrets: SecretsFromEnv(os.Getenv, DefaultSecretEnvs), Maps: DefaultMaps(cwd, os.Getenv)}
}
