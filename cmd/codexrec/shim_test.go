package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/fixtures/fakemodel"
	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/testing/codextest"
)

// installShim runs `codexrec shim install DIR` and returns DIR/codex.
func installShim(t *testing.T, extra ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bin")
	r := runCodexrec(t, "", nil, append([]string{"shim", "install"}, append(extra, dir)...)...)
	if r.code != 0 {
		t.Fatalf("shim install: exit %d\n%s", r.code, r.stderr)
	}
	p := filepath.Join(dir, "codex")
	if !bytes.HasPrefix(r.stdout, []byte(p+"\n")) {
		t.Fatalf("shim install printed %q, want the path %s first", r.stdout, p)
	}
	return p
}

// pathEnv is env with PATH set to dirs, then the system's directories for node and
// sh (which hold no codex).
func pathEnv(env []string, dirs ...string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PATH=") {
			out = append(out, kv)
		}
	}
	return append(out, "PATH="+strings.Join(append(dirs, "/usr/local/bin", "/usr/bin", "/bin"), string(os.PathListSeparator)))
}

// TestShimPassesThrough: through the shim, every codex invocation that is not an
// app-server session is the real binary's, output and exit status alike; with no
// real codex after the shim on PATH, the error says how to name one; the shim never
// finds itself.
func TestShimPassesThrough(t *testing.T) {
	shimPath := installShim(t)
	for _, v := range codexbin.Versions {
		t.Run(v, func(t *testing.T) {
			real := codextest.Binary(t, v)
			env := pathEnv(cleanEnv(t), filepath.Dir(shimPath), filepath.Dir(real))
			for _, args := range [][]string{{"--version"}, {"app-server", "--help"}, {"--no-such-flag"}} {
				want := runEnv(t, env, nil, real, args...)
				got := runEnv(t, env, nil, shimPath, args...)
				if got.code != want.code || !bytes.Equal(got.stdout, want.stdout) || !bytes.Equal(got.stderr, want.stderr) {
					t.Errorf("codex %s through the shim: exit %d, stdout %q, stderr %.300q; the real one: exit %d, stdout %q, stderr %.300q",
						strings.Join(args, " "), got.code, got.stdout, got.stderr, want.code, want.stdout, want.stderr)
				}
			}
			if v == codexbin.Newest {
				if r := runEnv(t, env, nil, shimPath, "--version"); !bytes.HasPrefix(r.stdout, []byte("codex-cli "+v)) {
					t.Errorf("codex --version through the shim: %q", r.stdout)
				}
			}
		})
	}
	t.Run("passthrough session", func(t *testing.T) {
		real := codextest.Binary(t, codexbin.Newest)
		recs := filepath.Join(t.TempDir(), "recordings")
		env := pathEnv(cleanEnv(t, "CODEXREC_MODE=passthrough", "CODEXREC_DIR="+recs), filepath.Dir(shimPath), filepath.Dir(real))
		r := runEnv(t, env, initializeLine("passing"), shimPath, "app-server")
		if r.code != 0 || !bytes.Contains(r.stdout, []byte(`"userAgent":"passing/`)) || bytes.Contains(r.stderr, []byte("codexrec")) {
			t.Errorf("exit %d, stdout %s, stderr %s; want the real codex's answer and no word from codexrec", r.code, r.stdout, r.stderr)
		}
		if _, err := os.Stat(recs); err == nil {
			t.Error("passthrough created the recordings directory")
		}
	})
	t.Run("no real codex", func(t *testing.T) {
		// The shim's own directory twice: it must not find itself after itself.
		env := pathEnv(cleanEnv(t), filepath.Dir(shimPath), filepath.Dir(shimPath))
		r := runEnv(t, env, nil, shimPath, "--version")
		if r.code != 2 || !bytes.Contains(r.stderr, []byte("no real codex found on PATH after "+filepath.Dir(shimPath))) ||
			!bytes.Contains(r.stderr, []byte("CODEXREC_CODEX")) {
			t.Errorf("exit %d, stderr %s; want 2 and how to name the real codex", r.code, r.stderr)
		}
	})
	t.Run("symlink named codex", func(t *testing.T) {
		real := codextest.Binary(t, codexbin.Newest)
		link := filepath.Join(t.TempDir(), "codex")
		if err := os.Symlink(codexrecBin, link); err != nil {
			t.Fatal(err)
		}
		env := pathEnv(cleanEnv(t), filepath.Dir(link), filepath.Dir(real))
		want := runEnv(t, env, nil, real, "--version")
		if got := runEnv(t, env, nil, link, "--version"); got.code != 0 || !bytes.Equal(got.stdout, want.stdout) {
			t.Errorf("codex --version through a symlink: exit %d, %q; want %q\n%s", got.code, got.stdout, want.stdout, got.stderr)
		}
	})
}

// npmClient is the entry of ai-sdk-provider-codex-cli (scripts/install-npm-client.sh).
func npmClient(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		codextest.Missing(t, "node is not installed")
	}
	rel := filepath.Join("npm-client", "ai-sdk-provider-codex-cli@2.2.1", "node_modules", "ai-sdk-provider-codex-cli", "dist", "index.js")
	var tried []string
	if c := os.Getenv("CODEXREC_CACHE"); c != "" {
		tried = append(tried, filepath.Join(c, rel))
	}
	if root, err := codexbin.ModuleRoot(); err == nil {
		tried = append(tried, filepath.Join(root, ".cache", rel))
	}
	for _, p := range tried {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	codextest.Missing(t, "ai-sdk-provider-codex-cli is not installed (scripts/install-npm-client.sh installs it)")
	return ""
}

// TestShimThirdPartyClient: a real turn of ai-sdk-provider-codex-cli, an npm client
// this project did not write, which starts `codex` by name from PATH, is recorded
// through the shim in front of the real codex (CODEXREC_MODE=record), then replayed
// through the shim in CI with no codex on PATH and the model gone (CODEXREC_MODE=auto,
// CI=true): the client gets the same answer without changing a line of it.
func TestShimThirdPartyClient(t *testing.T) {
	entry := npmClient(t)
	script, err := filepath.Abs(filepath.Join("testdata", "npmclient", "turn.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range codexbin.Versions {
		t.Run(v, func(t *testing.T) {
			real := codextest.Binary(t, v)
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
			if rec.code != 0 || gjsonText(rec.stdout) != answer {
				t.Fatalf("recording through the shim: exit %d, stdout %s\nstderr:\n%s", rec.code, rec.stdout, rec.stderr)
			}
			if model.Served() != 1 {
				t.Fatalf("the model served %d requests, want 1", model.Served())
			}
			model.Close()
			recording := filepath.Join(recs, "001-initialize.jsonl")
			b, err := os.ReadFile(recording)
			if err != nil {
				t.Fatalf("no recording named by the naming rule: %v", err)
			}
			for _, want := range []string{`"name":"ai-sdk-provider-codex-cli"`, `"method":"turn/completed"`, `"dir":"c2s","kind":"request","method":"turn/start"`} {
				if !bytes.Contains(b, []byte(want)) {
					t.Errorf("the recording lacks %s", want)
				}
			}

			// CI: no codex on PATH, no model, auto mode: replay only. CODEXREC_LOG keeps
			// what the shim said, which this client does not show.
			logPath := filepath.Join(t.TempDir(), "codexrec.log")
			ci := pathEnv(append(clean, append(base, "CODEXREC_MODE=auto", "CI=true", "CODEXREC_LOG="+logPath)...), filepath.Dir(shimPath))
			rep := runNode(t, ci, script)
			if rep.code != 0 || gjsonText(rep.stdout) != answer {
				t.Fatalf("replaying through the shim in CI: exit %d, stdout %s\nstderr:\n%s", rep.code, rep.stdout, rep.stderr)
			}
			// The client closes stdin and sends SIGTERM at once; the replay ends as at
			// EOF, exit 0 (the client logs how its server exited).
			if !bytes.Contains(rep.stdout, []byte("codex app-server exited (code=0, signal=null)")) {
				t.Errorf("the replay did not exit 0 when the client closed it:\n%s", rep.stdout)
			}
			if log, _ := os.ReadFile(logPath); !bytes.Contains(log, []byte("codexrec: mode auto: replay "+recording)) {
				t.Errorf("CODEXREC_LOG lacks the session's mode line:\n%s", log)
			}

			// The same client with another prompt: the test fails, and the log says why
			// and what would accept it.
			changed := runNode(t, append(ci, "PROMPT=Say goodbye.", "CODEXREC_RUN=changed"), script)
			log, _ := os.ReadFile(logPath)
			if changed.code == 0 || !bytes.Contains(log, []byte(`/params/input/0/text: "User: Say goodbye.", recorded "User: Say hello."`)) ||
				!bytes.Contains(log, []byte("accepted by: --match method")) {
				t.Errorf("a changed prompt: exit %d; CODEXREC_LOG:\n%s", changed.code, log)
			}
			after, _ := os.ReadFile(recording)
			if !bytes.Equal(after, b) {
				t.Error("replaying changed the recording")
			}
			entries, _ := os.ReadDir(recs)
			for _, e := range entries {
				if e.Name() != "001-initialize.jsonl" && e.Name() != ".codexrec-runs.json" {
					t.Errorf("unexpected file %s in the recordings", e.Name())
				}
			}
		})
	}
}

// runNode runs node SCRIPT with env; the client prints one JSON line.
func runNode(t *testing.T, env []string, script string) result {
	t.Helper()
	cmd := exec.Command("node", script)
	cmd.Env = append(env, "GORACE=atexit_sleep_ms=0")
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

// gjsonText is the text of the client's JSON line (it logs other lines to stdout).
func gjsonText(b []byte) string {
	for _, line := range bytes.Split(b, []byte("\n")) {
		var v struct{ Text string }
		if bytes.HasPrefix(line, []byte("{")) && json.Unmarshal(line, &v) == nil {
			return v.Text
		}
	}
	return ""
}

// TestShimExecIsExact: what the shim hands to the real codex arrives unchanged:
// arguments (spaces, quotes, an empty one), environment, working directory, stdin,
// stdout, stderr, the exit status, and death by a signal. The real codex cannot
// print its own argv and environment, so a shell script named by CODEXREC_CODEX
// stands in for it here.
func TestShimExecIsExact(t *testing.T) {
	shimPath := installShim(t)
	fake := filepath.Join(t.TempDir(), "codex")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '[%s]\\n' \"$a\"; done\npwd\necho \"MARK=$MARK\"\nread line; echo \"stdin=$line\"\necho to-stderr >&2\n" +
		"[ \"$1\" = die ] && kill -TERM $$\nexit 7\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	env := pathEnv(cleanEnv(t, "CODEXREC_CODEX="+fake, "MARK=a b\"c"), filepath.Dir(shimPath))
	cmd := exec.Command(shimPath, "exec", "two words", "", `q"uote`)
	cmd.Env, cmd.Dir, cmd.Stdin = env, work, strings.NewReader("hello\n")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 7 {
		t.Fatalf("exit %v, want 7; stderr %s", err, errb.String())
	}
	want := "[exec]\n[two words]\n[]\n[q\"uote]\n" + work + "\nMARK=a b\"c\nstdin=hello\n"
	if out.String() != want || errb.String() != "to-stderr\n" {
		t.Errorf("stdout %q, stderr %q; want %q, \"to-stderr\\n\"", out.String(), errb.String(), want)
	}
	cmd = exec.Command(shimPath, "die")
	cmd.Env, cmd.Stdin = env, strings.NewReader("x\n")
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != -1 || !strings.Contains(ee.Error(), "terminated") {
		t.Errorf("a real codex killed by SIGTERM: %v, want the shim killed by it too", err)
	}
}

// TestShimReplayFlags: the flag a mismatch suggests reaches a shim's replay through
// CODEXREC_REPLAY_FLAGS; a bad one is a usage error naming the variable.
func TestShimReplayFlags(t *testing.T) {
	shimPath := installShim(t)
	dir := t.TempDir()
	plain := replayFixture(codexbin.Newest, "plain")
	b, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "first.jsonl"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	in, _, _ := recordedClientInput(t, plain)
	wrong := bytes.Replace(in, []byte("Say hello to codexrec."), []byte("Say goodbye."), 1)
	for _, tc := range []struct {
		flags string
		code  int
		has   string
	}{
		{"", 1, "accepted by: --match method"},
		{"--match method", 0, "codexrec: mode replay: replay"},
		{"--match nonsense", 2, "unknown match mode"},
		{"--no-such-flag", 2, "CODEXREC_REPLAY_FLAGS: flag provided but not defined: -no-such-flag"},
	} {
		// Each its own run: within one run a second session named first is first-2.
		env := pathEnv(cleanEnv(t, "CODEXREC_MODE=replay", "CODEXREC_DIR="+dir, "CODEXREC_NAME=first", "CODEXREC_RUN="+tc.flags,
			"CODEXREC_REPLAY_FLAGS="+tc.flags), filepath.Dir(shimPath))
		r := runEnv(t, env, wrong, shimPath, "app-server")
		if r.code != tc.code || !bytes.Contains(r.stderr, []byte(tc.has)) {
			t.Errorf("CODEXREC_REPLAY_FLAGS=%q: exit %d, want %d with %q; stderr:\n%s", tc.flags, r.code, tc.code, tc.has, r.stderr)
		}
	}
}
