// Package config reads a project's .codexrec.toml: the settings that flags and
// CODEXREC_* environment variables otherwise hold (drop-in mode, recordings, match
// rules, repeats, staleness, redaction, check assertions), strictly (an unknown key
// is an error naming it and its line). It resolves each setting against the
// environment and says where its value came from, and applies the settings to a
// flag.FlagSet through a table of bindings the caller gives (it names no flag itself).
package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// FileName is the name Find looks for.
const FileName = ".codexrec.toml"

// EnvConfig names the config file, overriding the search.
const EnvConfig = "CODEXREC_CONFIG"

// File is a parsed .codexrec.toml. Every field is optional.
type File struct {
	Mode  string `toml:"mode"`  // drop-in mode (CODEXREC_MODE)
	Dir   string `toml:"dir"`   // recordings directory (CODEXREC_DIR), relative to the file
	Name  string `toml:"name"`  // recording name (CODEXREC_NAME)
	Codex string `toml:"codex"` // the real codex (CODEXREC_CODEX)
	Log   string `toml:"log"`   // report file (CODEXREC_LOG), relative to the file

	Match    Match    `toml:"match"`
	Repeats  Repeats  `toml:"repeats"`
	Stale    Stale    `toml:"stale"`
	Sanitize Sanitize `toml:"sanitize"`
	Check    Check    `toml:"check"`
}

// Match holds replay's matching settings.
type Match struct {
	Mode      string                 `toml:"mode"`
	Unordered *bool                  `toml:"unordered"`
	Strict    *bool                  `toml:"strict"`
	Ignore    []string               `toml:"ignore"`
	MatchOnly []string               `toml:"match_only"`
	Methods   map[string]MethodRules `toml:"methods"`
}

// MethodRules are match rules for one method.
type MethodRules struct {
	Ignore    []string `toml:"ignore"`
	MatchOnly []string `toml:"match_only"`
}

// Repeats holds replay's repeat settings.
type Repeats struct {
	Enabled    *bool    `toml:"enabled"`
	Idempotent []string `toml:"idempotent"`
}

// Stale holds the staleness limits.
type Stale struct {
	MaxAge   string `toml:"max_age"`
	MinCodex string `toml:"min_codex"`
	Action   string `toml:"action"`
}

// Sanitize holds record's redaction settings: what the sanitizer supports.
type Sanitize struct {
	SecretEnvs  []string `toml:"secret_envs"`
	SecretFiles []string `toml:"secret_files"` // relative to the file
	Allow       []string `toml:"allow"`
	AllowFiles  []string `toml:"allow_files"` // relative to the file
	Maps        []string `toml:"maps"`        // "FROM=TO"
	Salt        string   `toml:"salt"`
}

// Check holds check's gate and assertions.
type Check struct {
	FailOn          string   `toml:"fail_on"`
	Disable         []string `toml:"disable"`
	ExpectMethods   []string `toml:"expect_methods"`
	ForbidMethods   []string `toml:"forbid_methods"`
	MaxTurnDuration string   `toml:"max_turn_duration"`
	ExpectApproval  *bool    `toml:"expect_approval"`
}

// Find returns the config file to use: explicit when set, else $CODEXREC_CONFIG,
// else the first .codexrec.toml in dir or a directory above it; "" when none.
func Find(explicit string, getenv func(string) string, dir string) (string, error) {
	if explicit != "" {
		return explicit, nil
	}
	if p := getenv(EnvConfig); p != "" {
		return p, nil
	}
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(d, FileName)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", nil
		}
		d = up
	}
}

// ErrUnknownKey is wrapped by Load's error for a key the file format does not have.
var ErrUnknownKey = errors.New("unknown key")

// Load reads and parses the file at path. An unknown key or a value of the wrong
// type is an error of the form "PATH:LINE: ...".
func Load(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(b, path)
}

// Parse parses a config file's text; name is used in errors and to resolve relative
// paths (its directory).
func Parse(b []byte, name string) (*File, error) {
	var f File
	d := toml.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&f); err != nil {
		var sm *toml.StrictMissingError
		if errors.As(err, &sm) && len(sm.Errors) > 0 {
			var errs []error
			for i := range sm.Errors {
				e := &sm.Errors[i]
				row, _ := e.Position()
				errs = append(errs, fmt.Errorf("%s:%d: %w %q", name, row, ErrUnknownKey, strings.Join(e.Key(), ".")))
			}
			return nil, errors.Join(errs...)
		}
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, _ := de.Position()
			return nil, fmt.Errorf("%s:%d: %s", name, row, de.Error())
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	base := filepath.Dir(name)
	rel := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(base, p)
	}
	f.Dir, f.Log = rel(f.Dir), rel(f.Log)
	for i := range f.Sanitize.SecretFiles {
		f.Sanitize.SecretFiles[i] = rel(f.Sanitize.SecretFiles[i])
	}
	for i := range f.Sanitize.AllowFiles {
		f.Sanitize.AllowFiles[i] = rel(f.Sanitize.AllowFiles[i])
	}
	return &f, nil
}

// Source says where a setting's value came from.
type Source struct {
	Kind string // "file", "env" or "flag" (set by the caller)
	File string // the config file, for Kind "file"
	Line int    // its line, when known
	Env  string // the variable, for Kind "env"
	Flag string // the flag, for Kind "flag"
}

func (s Source) String() string {
	switch s.Kind {
	case "file":
		if s.Line > 0 {
			return s.File + ":" + strconv.Itoa(s.Line)
		}
		return s.File
	case "env":
		return "env " + s.Env
	case "flag":
		return "flag --" + s.Flag
	}
	return "default"
}

// Setting is one resolved setting: its key in the file ("match.mode",
// "match.methods.turn/start.ignore"), its values (one for a scalar) and where they
// came from.
type Setting struct {
	Key    string
	Values []string
	Source Source
}

// Spec describes a setting: its key, the environment variable that overrides the
// file (if any), and whether it holds a list.
type Spec struct {
	Key  string
	Env  string
	List bool
}

// Specs lists every fixed key, in file order; per-method match rules add
// "match.methods.METHOD.ignore" and ".match_only" keys.
var Specs = []Spec{
	{"mode", "CODEXREC_MODE", false}, {"dir", "CODEXREC_DIR", false}, {"name", "CODEXREC_NAME", false},
	{"codex", "CODEXREC_CODEX", false}, {"log", "CODEXREC_LOG", false},
	{"match.mode", "", false}, {"match.unordered", "", false}, {"match.strict", "", false},
	{"match.ignore", "", true}, {"match.match_only", "", true},
	{"repeats.enabled", "", false}, {"repeats.idempotent", "", true},
	{"stale.max_age", "CODEXREC_MAX_AGE", false}, {"stale.min_codex", "CODEXREC_MIN_CODEX", false}, {"stale.action", "CODEXREC_STALE", false},
	{"sanitize.secret_envs", "", true}, {"sanitize.secret_files", "", true}, {"sanitize.allow", "", true},
	{"sanitize.allow_files", "", true}, {"sanitize.maps", "", true}, {"sanitize.salt", "", false},
	{"check.fail_on", "", false}, {"check.disable", "", true}, {"check.expect_methods", "", true},
	{"check.forbid_methods", "", true}, {"check.max_turn_duration", "", false}, {"check.expect_approval", "", false},
}

// values returns the file's values by key; absent keys are left out.
func (f *File) values() map[string][]string {
	v := map[string][]string{}
	str := func(k, s string) {
		if s != "" {
			v[k] = []string{s}
		}
	}
	boolean := func(k string, b *bool) {
		if b != nil {
			v[k] = []string{strconv.FormatBool(*b)}
		}
	}
	list := func(k string, l []string) {
		if l != nil {
			v[k] = l
		}
	}
	str("mode", f.Mode)
	str("dir", f.Dir)
	str("name", f.Name)
	str("codex", f.Codex)
	str("log", f.Log)
	str("match.mode", f.Match.Mode)
	boolean("match.unordered", f.Match.Unordered)
	boolean("match.strict", f.Match.Strict)
	list("match.ignore", f.Match.Ignore)
	list("match.match_only", f.Match.MatchOnly)
	for m, r := range f.Match.Methods {
		list("match.methods."+m+".ignore", r.Ignore)
		list("match.methods."+m+".match_only", r.MatchOnly)
	}
	boolean("repeats.enabled", f.Repeats.Enabled)
	list("repeats.idempotent", f.Repeats.Idempotent)
	str("stale.max_age", f.Stale.MaxAge)
	str("stale.min_codex", f.Stale.MinCodex)
	str("stale.action", f.Stale.Action)
	list("sanitize.secret_envs", f.Sanitize.SecretEnvs)
	list("sanitize.secret_files", f.Sanitize.SecretFiles)
	list("sanitize.allow", f.Sanitize.Allow)
	list("sanitize.allow_files", f.Sanitize.AllowFiles)
	list("sanitize.maps", f.Sanitize.Maps)
	str("sanitize.salt", f.Sanitize.Salt)
	str("check.fail_on", f.Check.FailOn)
	list("check.disable", f.Check.Disable)
	list("check.expect_methods", f.Check.ExpectMethods)
	list("check.forbid_methods", f.Check.ForbidMethods)
	str("check.max_turn_duration", f.Check.MaxTurnDuration)
	boolean("check.expect_approval", f.Check.ExpectApproval)
	return v
}

// Resolve returns every setting the file (f, read from path; nil for none) or the
// environment sets, the environment winning, in Specs order then per-method keys
// sorted. Settings at their defaults are left out.
func Resolve(f *File, path string, getenv func(string) string) []Setting {
	var fileVals map[string][]string
	var lines map[string]int
	if f != nil {
		fileVals = f.values()
		lines = keyLines(path)
	}
	var out []Setting
	for _, s := range Specs {
		if s.Env != "" {
			if v := getenv(s.Env); v != "" {
				out = append(out, Setting{s.Key, []string{v}, Source{Kind: "env", Env: s.Env}})
				continue
			}
		}
		if v, ok := fileVals[s.Key]; ok {
			out = append(out, Setting{s.Key, v, Source{Kind: "file", File: path, Line: lines[s.Key]}})
		}
	}
	var methods []string
	for k := range fileVals {
		if strings.HasPrefix(k, "match.methods.") {
			methods = append(methods, k)
		}
	}
	slices.Sort(methods)
	for _, k := range methods {
		line := lines[k]
		out = append(out, Setting{k, fileVals[k], Source{Kind: "file", File: path, Line: line}})
	}
	return out
}

// keyLines maps each key of a (valid) config file to the line it is set on: a scan
// of table headers and "key =" lines, enough to point a reader at it.
func keyLines(path string) map[string]int {
	out := map[string]int{}
	b, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	table := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "["):
			if i := strings.LastIndex(line, "]"); i > 0 {
				table = unquoteKey(strings.Trim(line[:i+1], "[] "))
			}
		case line == "" || line[0] == '#':
		default:
			k, _, ok := strings.Cut(line, "=")
			if !ok {
				continue
			}
			key := unquoteKey(strings.TrimSpace(k))
			if table != "" {
				key = table + "." + key
			}
			if _, seen := out[key]; !seen {
				out[key] = n
			}
		}
	}
	return out
}

// unquoteKey turns a dotted TOML key with quoted parts (match.methods."turn/start")
// into the plain dotted form (match.methods.turn/start).
func unquoteKey(k string) string {
	var parts []string
	for k != "" {
		k = strings.TrimSpace(k)
		if k != "" && (k[0] == '"' || k[0] == '\'') {
			q := k[0]
			end := strings.IndexByte(k[1:], q)
			if end < 0 {
				return k
			}
			parts = append(parts, k[1:end+1])
			k = strings.TrimPrefix(strings.TrimSpace(k[end+2:]), ".")
			continue
		}
		p, rest, _ := strings.Cut(k, ".")
		parts = append(parts, strings.TrimSpace(p))
		k = rest
	}
	return strings.Join(parts, ".")
}
