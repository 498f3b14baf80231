// Command gitleaksgen compiles gitleaks' default rules (gitleaks.toml, copied here
// from the module github.com/zricethezav/gitleaks/v8 with its license) into a Go file
// of rule data for package sanitize, which runs them in its own prefilter and regular
// expression engine. It does not import gitleaks: the config is parsed here, so
// neither gitleaks nor its config loader become dependencies of the module.
//
// Upgrading gitleaks is a fetch and a regenerate:
//
//	go run ./sanitize/internal/gitleaksgen -fetch v8.30.1   # refresh gitleaks.toml, LICENSE.gitleaks
//	go generate ./sanitize
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

const module = "github.com/zricethezav/gitleaks/v8"

// skipped are rules of gitleaks' set that the sanitizer does not take, and why.
var skipped = map[string]string{
	"generic-api-key": "superseded by the sanitizer's keyword-secret rule (same idea, with JSON-aware values and its own placeholders); its keywords (key, token, api, auth, access) occur in nearly every frame",
}

func main() {
	var (
		in      = flag.String("toml", "internal/gitleaksgen/gitleaks.toml", "gitleaks config to compile")
		out     = flag.String("o", "gitleaks_rules.go", "Go file to write")
		version = flag.String("version", "", "gitleaks version the config is from (default: read from VERSION beside -toml)")
		fetch   = flag.String("fetch", "", "download this gitleaks `VERSION` with the go command and copy its config and license beside this generator, then exit")
	)
	flag.Parse()
	if *fetch != "" {
		if err := fetchConfig(*fetch); err != nil {
			fmt.Fprintln(os.Stderr, "gitleaksgen:", err)
			os.Exit(1)
		}
		return
	}
	if *version == "" {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(*in), "VERSION"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "gitleaksgen:", err)
			os.Exit(1)
		}
		*version = strings.TrimSpace(string(b))
	}
	src, err := os.ReadFile(*in)
	if err == nil {
		src, err = generate(string(src), *version)
	}
	if err == nil {
		err = os.WriteFile(*out, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gitleaksgen:", err)
		os.Exit(1)
	}
}

// fetchConfig copies config/gitleaks.toml and LICENSE of the module at version into
// this generator's directory (found from the running source: the -toml default's dir).
func fetchConfig(version string) error {
	cmd := exec.Command("go", "mod", "download", "-json", module+"@"+version)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go mod download %s@%s: %w", module, version, err)
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(b, &info); err != nil || info.Dir == "" {
		return fmt.Errorf("go mod download %s@%s: %s", module, version, info.Error)
	}
	dir := filepath.Join("sanitize", "internal", "gitleaksgen")
	for from, to := range map[string]string{"config/gitleaks.toml": "gitleaks.toml", "LICENSE": "LICENSE.gitleaks"} {
		data, err := os.ReadFile(filepath.Join(info.Dir, from))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, to), data, 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "VERSION"), []byte(version+"\n"), 0o644)
}

type rule struct {
	ID, Regex   string
	SecretGroup int
	Entropy     float64
	Keywords    []string
	// Prefixes are the literals every match starts with (one per leading
	// alternative) when each begins with a keyword: then a keyword occurrence is
	// where a match starts. PrefixFold says they match case-insensitively; Word
	// that the regex starts with \b.
	Prefixes   []string
	PrefixFold bool
	Word       bool
	Allow      []allow
}

type allow struct {
	Target    string // "secret", "match" or "line"
	Regexes   []string
	Stopwords []string
}

func generate(src, version string) ([]byte, error) {
	tables, err := parseTOML(src)
	if err != nil {
		return nil, err
	}
	var rules []rule
	var global allow
	var notes []string
	var cur *rule
	skipCur := false
	for _, t := range tables {
		switch t.name {
		case "":
		case "allowlist":
			a, ok, err := toAllow(t)
			if err != nil {
				return nil, err
			}
			if ok {
				global = a
			}
		case "rules":
			if cur != nil && !skipCur {
				rules = append(rules, *cur)
			}
			r, why, err := toRule(t)
			if err != nil {
				return nil, err
			}
			cur, skipCur = &r, why != ""
			if why != "" {
				notes = append(notes, fmt.Sprintf("%s: %s", r.ID, why))
			}
		case "rules.allowlists":
			if cur == nil {
				return nil, fmt.Errorf("gitleaks.toml line %d: allowlist before any rule", t.line)
			}
			a, ok, err := toAllow(t)
			if err != nil {
				return nil, err
			}
			if ok {
				cur.Allow = append(cur.Allow, a)
			}
		default:
			return nil, fmt.Errorf("gitleaks.toml line %d: unknown table [%s]", t.line, t.name)
		}
	}
	if cur != nil && !skipCur {
		rules = append(rules, *cur)
	}
	sort.Slice(rules, func(i, j int) bool { return rules[i].ID < rules[j].ID })
	sort.Strings(notes)
	return render(version, rules, global, notes)
}

func str(t table, k string) (string, error) {
	v, ok := t.keys[k]
	if !ok {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("gitleaks.toml line %d: %s is not a string", t.line, k)
	}
	return s, nil
}

func strs(t table, k string) ([]string, error) {
	v, ok := t.keys[k]
	if !ok {
		return nil, nil
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("gitleaks.toml line %d: %s is not an array", t.line, k)
	}
	out := make([]string, len(arr))
	for i, e := range arr {
		if out[i], ok = e.(string); !ok {
			return nil, fmt.Errorf("gitleaks.toml line %d: %s[%d] is not a string", t.line, k, i)
		}
	}
	return out, nil
}

var ruleKeys = map[string]bool{"id": true, "description": true, "regex": true, "secretGroup": true, "entropy": true, "keywords": true, "path": true, "tags": true}

// toRule converts a [[rules]] table; why says why the sanitizer skips it.
func toRule(t table) (r rule, why string, err error) {
	for k := range t.keys {
		if !ruleKeys[k] {
			return r, "", fmt.Errorf("gitleaks.toml line %d: unknown rule key %s", t.line, k)
		}
	}
	if r.ID, err = str(t, "id"); err != nil {
		return
	}
	if r.Regex, err = str(t, "regex"); err != nil {
		return
	}
	if r.Keywords, err = strs(t, "keywords"); err != nil {
		return
	}
	for i, k := range r.Keywords {
		r.Keywords[i] = strings.ToLower(k)
	}
	if v, ok := t.keys["entropy"]; ok {
		r.Entropy, _ = v.(float64)
	}
	if v, ok := t.keys["secretGroup"]; ok {
		f, _ := v.(float64)
		r.SecretGroup = int(f)
	}
	path, _ := str(t, "path")
	switch {
	case skipped[r.ID] != "":
		return r, skipped[r.ID], nil
	case r.Regex == "":
		return r, "matches file paths only (a recording has no file paths)", nil
	case path != "":
		return r, "applies only to files whose path matches " + path, nil
	case len(r.Keywords) == 0:
		return r, "has no keywords: its regex would run on every frame", nil
	}
	if _, err := regexp.Compile(r.Regex); err != nil {
		return r, "", fmt.Errorf("rule %s: %w", r.ID, err)
	}
	r.Prefixes, r.PrefixFold, r.Word = literalPrefixes(r.Regex, r.Keywords)
	return r, "", nil
}

// toAllow converts an allowlist; ok is false when it can never apply to a
// recording (it is restricted to commits or paths).
func toAllow(t table) (a allow, ok bool, err error) {
	a.Target = "secret"
	if s, _ := str(t, "regexTarget"); s != "" {
		a.Target = s
	}
	switch a.Target {
	case "secret", "match", "line":
	default:
		return a, false, fmt.Errorf("gitleaks.toml line %d: unknown regexTarget %q", t.line, a.Target)
	}
	if a.Regexes, err = strs(t, "regexes"); err != nil {
		return
	}
	if a.Stopwords, err = strs(t, "stopwords"); err != nil {
		return
	}
	for _, re := range a.Regexes {
		if _, err := regexp.Compile(re); err != nil {
			return a, false, fmt.Errorf("gitleaks.toml line %d: allowlist regex %q: %w", t.line, re, err)
		}
	}
	cond, _ := str(t, "condition")
	_, paths := t.keys["paths"]
	_, commits := t.keys["commits"]
	if strings.EqualFold(cond, "AND") && (paths || commits) {
		return a, false, nil // needs a path or commit to match too, which a frame has not
	}
	return a, len(a.Regexes)+len(a.Stopwords) > 0, nil
}
