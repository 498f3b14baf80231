package config_test

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/config"
)

var bindings = config.Bindings{
	"match.mode":             {{Command: "replay", Name: "match"}},
	"match.ignore":           {{Command: "replay", Name: "ignore"}},
	"match.methods.*.ignore": {{Command: "replay", Name: "ignore"}},
	"repeats.enabled":        {{Command: "replay", Name: "no-repeats", Invert: true}},
	"stale.max_age":          {{Command: "replay", Name: "max-age"}, {Command: "check", Name: "max-age"}},
}

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

func readSample(t *testing.T, env map[string]string) (string, []config.Setting) {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, config.FileName)
	if err := os.WriteFile(p, []byte(sample), 0o600); err != nil {
		t.Fatal(err)
	}
	path, settings, err := config.Read("", func(k string) string { return env[k] }, dir)
	if err != nil || path != p {
		t.Fatalf("Read = %q, %v; want %q", path, err, p)
	}
	return path, settings
}

func TestBindingsApply(t *testing.T) {
	_, settings := readSample(t, nil)
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	match := fs.String("match", "", "")
	noRepeats := fs.Bool("no-repeats", false, "")
	var ignore list
	fs.Var(&ignore, "ignore", "")
	if err := bindings.Apply(settings, "replay", fs); err != nil {
		t.Fatal(err)
	}
	if *match != "params" || !*noRepeats {
		t.Errorf("match = %q, no-repeats = %v; want params, true", *match, *noRepeats)
	}
	want := list{"/params/clientUserMessageId", "turn/start:/params/input/*/text"}
	if !reflect.DeepEqual(ignore, want) {
		t.Errorf("ignore = %q; want %q", ignore, want)
	}
	// Another command's flags are left alone.
	other := flag.NewFlagSet("check", flag.ContinueOnError)
	maxAge := other.String("max-age", "", "")
	otherMatch := other.String("match", "", "")
	if err := bindings.Apply(settings, "check", other); err != nil || *maxAge != "30d" || *otherMatch != "" {
		t.Errorf("check: max-age = %q, match = %q, err %v; want 30d, \"\", nil", *maxAge, *otherMatch, err)
	}
}

func TestBindingsApplyRefused(t *testing.T) {
	_, settings := readSample(t, nil)
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.Func("max-age", "", func(string) error { return errors.New("not a duration") })
	err := bindings.Apply(settings, "replay", fs)
	var se *config.SettingError
	if !errors.As(err, &se) || se.Setting.Key != "stale.max_age" || !strings.Contains(err.Error(), config.FileName+":") {
		t.Fatalf("Apply = %v; want a SettingError for stale.max_age naming the file and line", err)
	}
}

func TestBindingsEffective(t *testing.T) {
	path, settings := readSample(t, map[string]string{"CODEXREC_MAX_AGE": "7d"})
	lines := bindings.Effective(settings, "replay", map[string][]string{
		"match":  {"exact"},
		"ignore": {"/extra"},
	})
	got := map[string]string{}
	for _, l := range lines {
		src := l.Source
		if l.Option != "" {
			src += "|" + l.Option
			if l.Added {
				src += "+"
			}
		}
		got[l.Key] = l.Value() + " # " + src
	}
	for key, want := range map[string]string{
		"match.mode":                        `"exact" # |match`,
		"stale.max_age":                     `"7d" # env CODEXREC_MAX_AGE`,
		"match.ignore":                      `["/params/clientUserMessageId", "/extra"] # ` + path + `:7|ignore+`,
		`match.methods."turn/start".ignore`: `["/params/input/*/text"] # ` + path + ":10",
		"repeats.enabled":                   `false # ` + path + ":13",
	} {
		if got[key] != want {
			t.Errorf("%s = %s; want %s", key, got[key], want)
		}
	}
}

func TestBindingsEnvDefaults(t *testing.T) {
	_, settings := readSample(t, map[string]string{"CODEXREC_DIR": "elsewhere"})
	env := bindings.EnvDefaults(settings)
	if env["CODEXREC_MODE"] != "auto" {
		t.Errorf("CODEXREC_MODE = %q; want auto from the file", env["CODEXREC_MODE"])
	}
	if v, ok := env["CODEXREC_DIR"]; ok {
		t.Errorf("CODEXREC_DIR = %q; the environment sets it, want it left out", v)
	}
}
