package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/codexrec/codexrec/internal/codexbin"
)

// runIn runs the built binary in dir with extra environment variables.
func runIn(t *testing.T, dir string, env []string, stdin []byte, args ...string) result {
	t.Helper()
	cmd := exec.Command(codexrecBin, args...)
	cmd.Dir, cmd.Stdin = dir, bytes.NewReader(stdin)
	cmd.Env = append(cleanEnv(t, env...), "GORACE=atexit_sleep_ms=0")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.Bytes(), errb.Bytes(), code}
}

// TestConfigFile: .codexrec.toml found from the working directory upwards sets
// replay's match rules and staleness; the environment overrides the file and a flag
// overrides both; an unknown key is a usage error naming it and its line; codexrec
// config says where each setting came from.
func TestConfigFile(t *testing.T) {
	plain, err := filepath.Abs(replayFixture(codexbin.Newest, "plain"))
	if err != nil {
		t.Fatal(err)
	}
	in, _, _ := recordedClientInput(t, plain)
	changed := bytes.Replace(in, []byte("Say hello to codexrec."), []byte("Say goodbye."), 1)
	root := t.TempDir()
	work := filepath.Join(root, "suite", "pkg")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(root, "suite", ".codexrec.toml")
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(cfgPath, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("[match.methods.\"turn/start\"]\nignore = [\"/params/input/*/text\"]\n\n[stale]\nmax_age = \"1h\"\naction = \"fail\"\n")
	empty := filepath.Join(root, "empty.toml")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		env   []string
		args  []string
		stdin []byte
		code  int
		has   string
	}{
		{"file: stale fails", nil, nil, in, 1, "older than the maximum age 1h0m0s"},
		{"env over file", []string{"CODEXREC_MAX_AGE=36500d"}, nil, in, 0, ""},
		{"flag over env", []string{"CODEXREC_MAX_AGE=36500d"}, []string{"--max-age", "1h"}, in, 1, "older than the maximum age 1h0m0s"},
		{"flag over file", nil, []string{"--stale", "warn"}, in, 0, "warning: stale recording"},
		{"file's ignore rule accepts a changed prompt", []string{"CODEXREC_MAX_AGE=36500d"}, nil, changed, 0, ""},
		{"--config names another file", nil, []string{"--config", empty}, changed, 1, "; or --ignore turn/start:/params/input/*/text"},
		{"CODEXREC_CONFIG names another file", []string{"CODEXREC_CONFIG=" + empty}, nil, changed, 1, "matched nothing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runIn(t, work, tc.env, tc.stdin, append(append([]string{"replay"}, tc.args...), plain)...)
			if r.code != tc.code || !bytes.Contains(r.stderr, []byte(tc.has)) {
				t.Fatalf("exit %d, want %d with %q; stderr:\n%s", r.code, tc.code, tc.has, r.stderr)
			}
		})
	}

	r := runIn(t, work, []string{"CODEXREC_MAX_AGE=2h"}, nil, "config", "replay", "--stale", "warn")
	for _, want := range []string{
		"# config file: " + cfgPath + "\n",
		`match.methods."turn/start".ignore = ["/params/input/*/text"]  # ` + cfgPath + ":2\n",
		`stale.max_age = "2h"  # env CODEXREC_MAX_AGE` + "\n",
		`stale.action = "warn"  # flag --stale` + "\n",
	} {
		if r.code != 0 || !bytes.Contains(r.stdout, []byte(want)) {
			t.Errorf("codexrec config lacks %q: exit %d\n%s%s", want, r.code, r.stdout, r.stderr)
		}
	}

	write("[match]\nmode = \"params\"\nignor = [\"/params/x\"]\n")
	for _, args := range [][]string{{"replay", plain}, {"config"}, {"check", plain}} {
		r := runIn(t, work, nil, in, args...)
		want := "codexrec " + args[0] + ": config: " + cfgPath + `:3: unknown key "match.ignor"`
		if args[0] == "config" { // one prefix per message
			want = "codexrec config: " + cfgPath + `:3: unknown key "match.ignor"`
		}
		if r.code != 2 || !bytes.Contains(r.stderr, []byte(want)) {
			t.Errorf("%s with an unknown key: exit %d, want 2 with %q; stderr:\n%s", args[0], r.code, want, r.stderr)
		}
	}
}

// TestConfigShim: the shim reads CODEXREC_CONFIG: the mode, the recordings' directory,
// the name and the match rules all come from the file.
func TestConfigShim(t *testing.T) {
	shimPath := installShim(t)
	dir := t.TempDir()
	plain := replayFixture(codexbin.Newest, "plain")
	b, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "recs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "recs", "first.jsonl"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "codexrec.toml")
	text := "mode = \"replay\"\ndir = \"recs\"\nname = \"first\"\n\n[match.methods.\"turn/start\"]\nignore = [\"/params/input/*/text\"]\n"
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	in, _, _ := recordedClientInput(t, plain)
	changed := bytes.Replace(in, []byte("Say hello to codexrec."), []byte("Say goodbye."), 1)
	env := pathEnv(cleanEnv(t, "CODEXREC_CONFIG="+cfg), filepath.Dir(shimPath))
	r := runEnv(t, env, changed, shimPath, "app-server")
	if r.code != 0 || !bytes.Contains(r.stderr, []byte("codexrec: mode replay: replay "+filepath.Join(dir, "recs", "first.jsonl"))) {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	// The environment still wins over the file: another mode.
	r = runEnv(t, append(env, "CODEXREC_MODE=nonsense"), changed, shimPath, "app-server")
	if r.code != 2 || !bytes.Contains(r.stderr, []byte("CODEXREC_MODE")) {
		t.Errorf("CODEXREC_MODE over the file: exit %d; stderr:\n%s", r.code, r.stderr)
	}
}

// TestConfigSanitize: the redaction settings of .codexrec.toml reach the sanitizer: a
// variable named in sanitize.secret_envs is a known secret.
func TestConfigSanitize(t *testing.T) {
	plain, err := filepath.Abs(replayFixture(codexbin.Newest, "plain"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	env := []string{"MY_TOKEN=hello to codexrec"}
	r := runIn(t, dir, env, nil, "sanitize", "-o", "without.jsonl", plain)
	if b, _ := os.ReadFile(filepath.Join(dir, "without.jsonl")); r.code != 0 || !bytes.Contains(b, []byte("hello to codexrec")) {
		t.Fatalf("without a config: exit %d, stderr %s", r.code, r.stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, ".codexrec.toml"), []byte("[sanitize]\nsecret_envs = [\"MY_TOKEN\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runIn(t, dir, env, nil, "sanitize", "-o", "with.jsonl", plain)
	b, _ := os.ReadFile(filepath.Join(dir, "with.jsonl"))
	if r.code != 0 || bytes.Contains(b, []byte("hello to codexrec")) || !bytes.Contains(b, []byte("<redacted:known-secret:")) {
		t.Errorf("with sanitize.secret_envs: exit %d, stderr %s", r.code, r.stderr)
	}
}

// TestConfigJSON: config --json is one document of the same settings, each with
// where it came from; what follows the command's name is that command's flags.
func TestConfigJSON(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.toml")
	if err := os.WriteFile(cfg, []byte("[check]\ndisable = [\"noise\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runIn(t, dir, nil, nil, "config", "--json", "--config", cfg, "check", "--fail-on", "warning", "--disable", "exits")
	var doc struct {
		File     string
		Settings []struct {
			Key, Source, Option string
			Values              []string
			Added               bool
		}
	}
	if err := json.Unmarshal(r.stdout, &doc); r.code != 0 || err != nil {
		t.Fatalf("exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	got := map[string]string{}
	for _, s := range doc.Settings {
		got[s.Key] = fmt.Sprintf("%v %s %s %v", s.Values, s.Source, s.Option, s.Added)
	}
	want := map[string]string{
		"check.disable": "[noise exits] " + cfg + ":2 disable true",
		"check.fail_on": "[warning]  fail-on false",
	}
	if doc.File != cfg || !maps.Equal(got, want) {
		t.Errorf("file %q, settings %v; want %v", doc.File, got, want)
	}
}
