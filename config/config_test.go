package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/config"
)

const sample = `# a suite's settings
mode = "auto"
dir = "testdata/codex"

[match]
mode = "params"
ignore = ["/params/clientUserMessageId"]

[match.methods."turn/start"]
ignore = ["/params/input/*/text"]

[repeats]
enabled = false

[stale]
max_age = "30d"

[check]
expect_methods = ["turn/start"]
expect_approval = true
`

func write(t *testing.T, dir, text string) string {
	t.Helper()
	p := filepath.Join(dir, config.FileName)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParse(t *testing.T) {
	dir := t.TempDir()
	f, err := config.Load(write(t, dir, sample))
	if err != nil {
		t.Fatal(err)
	}
	if f.Mode != "auto" || f.Dir != filepath.Join(dir, "testdata", "codex") || f.Match.Methods["turn/start"].Ignore[0] != "/params/input/*/text" ||
		f.Repeats.Enabled == nil || *f.Repeats.Enabled || f.Stale.MaxAge != "30d" || f.Check.ExpectApproval == nil || !*f.Check.ExpectApproval {
		t.Errorf("parsed %+v", f)
	}
	for _, tc := range []struct{ text, want string }{
		{"mode = \"auto\"\n\n[match]\nignor = [\"/x\"]\n", `:4: unknown key "match.ignor"`},
		{"[stale]\nmax_age = \"1h\"\nmaxage = 3\n", `:3: unknown key "stale.maxage"`},
		{"[match.methods.\"turn/start\"]\nignore = [\"/a\"]\nskip = true\n", `:3: unknown key "match.methods.turn/start.skip"`},
		{"[match]\nunordered = \"yes\"\n", ":2: "},
		{"mode = \n", ":1: "},
	} {
		_, err := config.Parse([]byte(tc.text), "x.toml")
		if err == nil || !strings.Contains(err.Error(), "x.toml"+tc.want) {
			t.Errorf("%q: error %v, want x.toml%s", tc.text, err, tc.want)
		}
		if strings.Contains(tc.want, "unknown key") && !errors.Is(err, config.ErrUnknownKey) {
			t.Errorf("%q: not ErrUnknownKey", tc.text)
		}
	}
}

func TestFind(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	p := write(t, root, sample)
	none := func(string) string { return "" }
	if got, err := config.Find("", none, deep); err != nil || got != p {
		t.Errorf("found %q, %v; want %q", got, err, p)
	}
	env := func(k string) string {
		if k == config.EnvConfig {
			return "/elsewhere.toml"
		}
		return ""
	}
	if got, _ := config.Find("", env, deep); got != "/elsewhere.toml" {
		t.Errorf("CODEXREC_CONFIG ignored: %q", got)
	}
	if got, _ := config.Find("given.toml", env, deep); got != "given.toml" {
		t.Errorf("explicit ignored: %q", got)
	}
}

// TestResolve: the environment overrides the file; each setting says where it came
// from, with the file's line.
func TestResolve(t *testing.T) {
	p := write(t, t.TempDir(), sample)
	f, err := config.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"CODEXREC_MAX_AGE": "1h"}
	got := map[string]config.Setting{}
	for _, s := range config.Resolve(f, p, func(k string) string { return env[k] }) {
		got[s.Key] = s
	}
	for key, want := range map[string]string{
		"mode":                            `auto ` + p + `:2`,
		"match.ignore":                    `/params/clientUserMessageId ` + p + `:7`,
		"match.methods.turn/start.ignore": `/params/input/*/text ` + p + `:10`,
		"repeats.enabled":                 `false ` + p + `:13`,
		"stale.max_age":                   `1h env CODEXREC_MAX_AGE`,
		"check.expect_approval":           `true ` + p + `:20`,
	} {
		s, ok := got[key]
		if have := strings.Join(s.Values, ",") + " " + s.Source.String(); !ok || have != want {
			t.Errorf("%s: %q, want %q", key, have, want)
		}
	}
	if _, ok := got["match.unordered"]; ok {
		t.Error("a setting at its default was resolved")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("[match]\nignor = 1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		cf, err := config.Parse(b, "f.toml")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.toml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		config.Resolve(cf, "", func(string) string { return "" })
	})
}
