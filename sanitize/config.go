package sanitize

import (
	"fmt"
	"github.com/codexrec/codexrec/setting"
	"os"
	"slices"
	"strings"
)

// Config describes a sanitizer the way a user does: secret variables and files,
// path maps as FROM=TO, allow-lists inline or in files. The zero value takes the
// default secret variables from the environment and maps nothing.
type Config struct {
	SecretEnvs  []string // variables whose values are secrets, besides DefaultSecretEnvs
	SecretFiles []string // files holding one secret value per line
	Maps        []string // FROM=TO path maps, before the default ones
	Allow       []string // regular expressions of known false positives
	AllowFiles  []string // files holding Allow expressions, one per line (# comments)
	Salt        string
	// Cwd, when set, adds the default maps (cwd, home, temp dir, CODEX_HOME).
	Cwd string
	// Getenv reads the environment; nil is os.Getenv.
	Getenv func(string) string
}

// SettingError is a Config setting that could not be used: Setting names the field
// ("SecretFiles", "Maps", "AllowFiles"), Value the offending entry.
type SettingError = setting.Error

// Options are the sanitizer options c describes, with the names of the secret
// variables that were set (for a recording's header; never the values).
func (c Config) Options() (Options, []string, error) {
	getenv := c.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	opts := Options{Salt: c.Salt}
	var names []string
	for _, n := range append(append([]string(nil), DefaultSecretEnvs()...), c.SecretEnvs...) {
		v := getenv(n)
		if v == "" || slices.Contains(names, n) {
			continue
		}
		if len(v) < MinSecretLen && !slices.Contains(c.SecretEnvs, n) {
			continue // a default variable holding a few characters is no credential
		}
		names = append(names, n)
		opts.Secrets = append(opts.Secrets, Secret{Name: n, Value: v})
	}
	for _, p := range c.SecretFiles {
		b, err := os.ReadFile(p)
		if err != nil {
			return opts, nil, &SettingError{Setting: "SecretFiles", Value: p, Err: err}
		}
		for i, line := range strings.Split(string(b), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				opts.Secrets = append(opts.Secrets, Secret{Name: fmt.Sprintf("secret file line %d", i+1), Value: line})
			}
		}
	}
	for _, m := range c.Maps {
		from, to, ok := strings.Cut(m, "=")
		if !ok {
			return opts, nil, &SettingError{Setting: "Maps", Value: m, Err: fmt.Errorf("want FROM=TO")}
		}
		opts.Maps = append(opts.Maps, Map{From: from, To: to})
	}
	if c.Cwd != "" {
		opts.Maps = append(opts.Maps, DefaultMaps(c.Cwd, getenv)...)
	}
	opts.Allow = append(opts.Allow, c.Allow...)
	for _, p := range c.AllowFiles {
		b, err := os.ReadFile(p)
		if err != nil {
			return opts, nil, &SettingError{Setting: "AllowFiles", Value: p, Err: err}
		}
		for _, line := range strings.Split(string(b), "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				opts.Allow = append(opts.Allow, line)
			}
		}
	}
	return opts, names, nil
}

// New is the sanitizer c describes (Options, then New), with the names of the
// secret variables that were set. Its error is Options' (a *SettingError) or New's
// (an allow expression that does not compile).
func (c Config) New() (*Sanitizer, []string, error) {
	opts, names, err := c.Options()
	if err != nil {
		return nil, nil, err
	}
	z, err := New(opts)
	if err != nil {
		return nil, nil, err
	}
	return z, names, nil
}
