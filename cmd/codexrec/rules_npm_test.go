package main_test

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/fixtures/fakemodel"
	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/testing/codextest"
)

// TestShimThirdPartyClientRules: ai-sdk-provider-codex-cli, an npm client this
// project did not write, records one turn through the shim in front of the real
// codex; then, in CI with no codex and no model, the same client with another
// prompt is refused, and accepted once .codexrec.toml (found in the directory the
// client starts codex in) has the ignore rule the refusal named. The staleness limit
// from the environment warns, or fails the session.
func TestShimThirdPartyClientRules(t *testing.T) {
	entry := npmClient(t)
	script, err := filepath.Abs(filepath.Join("testdata", "npmclient", "turn.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	real := codextest.Binary(t, codexbin.Newest)
	const answer = "Hello from the fake model, through the shim."
	model, err := fakemodel.Start([]fakemodel.Response{{Output: []fakemodel.Item{{Type: "message", Text: answer}}}})
	if err != nil {
		t.Fatal(err)
	}
	env, home := codextest.Env(t)
	config := fmt.Sprintf("model_provider = \"fake\"\nmodel = \"gpt-fake\"\n\n[model_providers.fake]\nname = \"fake\"\nbase_url = %q\nenv_key = \"FAKE_API_KEY\"\nwire_api = \"responses\"\n", model.URL())
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	shimPath := installShim(t)
	recs := filepath.Join(t.TempDir(), "recordings")
	work := t.TempDir()
	base := []string{"CLIENT_MODULE=" + (&url.URL{Scheme: "file", Path: entry}).String(), "WORK=" + work, "CODEXREC_DIR=" + recs}
	var clean []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "CI=") && !strings.HasPrefix(kv, "CODEXREC_") {
			clean = append(clean, kv)
		}
	}
	rec := runNode(t, pathEnv(append(clean, append(base, "CODEXREC_MODE=record")...), filepath.Dir(shimPath), filepath.Dir(real)), script)
	model.Close()
	if rec.code != 0 || gjsonText(rec.stdout) != answer {
		t.Fatalf("recording through the shim: exit %d, stdout %s\nstderr:\n%s", rec.code, rec.stdout, rec.stderr)
	}
	logPath := filepath.Join(t.TempDir(), "codexrec.log")
	ci := pathEnv(append(clean, append(base, "CODEXREC_MODE=auto", "CI=true", "CODEXREC_LOG="+logPath)...), filepath.Dir(shimPath))
	readLog := func() string {
		b, _ := os.ReadFile(logPath)
		os.Remove(logPath)
		return string(b)
	}

	goodbye := append(ci, "PROMPT=Say goodbye.", "CODEXREC_RUN=goodbye")
	r := runNode(t, goodbye, script)
	log := readLog()
	const rule = "--ignore turn/start:/params/input/*/text"
	if r.code == 0 || !strings.Contains(log, rule) {
		t.Fatalf("a changed prompt without a rule: exit %d; CODEXREC_LOG:\n%s", r.code, log)
	}
	// The rule the log named, in the project's .codexrec.toml (the client starts
	// codex in WORK).
	toml := "[match.methods.\"turn/start\"]\nignore = [\"/params/input/*/text\"]\n"
	if err := os.WriteFile(filepath.Join(work, ".codexrec.toml"), []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runNode(t, append(goodbye[:len(goodbye):len(goodbye)], "CODEXREC_RUN=goodbye-2"), script)
	if log := readLog(); r.code != 0 || gjsonText(r.stdout) != answer {
		t.Fatalf("a changed prompt with the rule in .codexrec.toml: exit %d, stdout %s; CODEXREC_LOG:\n%s", r.code, r.stdout, log)
	}

	// Staleness from the environment: the recording is older than a millisecond.
	r = runNode(t, append(ci[:len(ci):len(ci)], "CODEXREC_MAX_AGE=1ms", "CODEXREC_RUN=warn"), script)
	if log := readLog(); r.code != 0 || gjsonText(r.stdout) != answer || !strings.Contains(log, "warning: stale recording") {
		t.Errorf("a stale recording, warn: exit %d, stdout %s; CODEXREC_LOG:\n%s", r.code, r.stdout, log)
	}
	r = runNode(t, append(ci[:len(ci):len(ci)], "CODEXREC_MAX_AGE=1ms", "CODEXREC_STALE=fail", "CODEXREC_RUN=fail"), script)
	if log := readLog(); r.code == 0 || !strings.Contains(log, "stale recording") || !strings.Contains(log, "exit 1") {
		t.Errorf("a stale recording, fail: exit %d, stdout %s; CODEXREC_LOG:\n%s", r.code, r.stdout, log)
	}
	if b, err := os.ReadFile(filepath.Join(recs, "001-initialize.jsonl")); err != nil || !bytes.Contains(b, []byte(`"method":"turn/start"`)) {
		t.Errorf("the recording changed or went: %v", err)
	}
}
