package main_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/testing/codextest"
)

// TestReplayStale: the built binary replays committed captures with staleness limits
// from flags and from the environment (flags win): a warning, a failure, a refusal
// to record afresh under CI.
func TestReplayStale(t *testing.T) {
	old := replayFixture("0.163.0", "plain")
	in, _, _ := recordedClientInput(t, old)
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		code int
		has  string
		not  string
	}{
		{"older codex warns", nil, []string{"--min-codex", "0.171.0"}, 0,
			"codexrec replay: warning: stale recording " + old + ": made by Codex 0.163.0, older than 0.171.0", ""},
		{"same codex is fresh", nil, []string{"--min-codex", "0.163.0"}, 0, "", "stale"},
		{"older than the maximum age", nil, []string{"--max-age", "1h"}, 0, "older than the maximum age 1h0m0s", ""},
		{"days", nil, []string{"--max-age", "36500d"}, 0, "", "stale"},
		{"fail", nil, []string{"--min-codex", "0.171.0", "--stale", "fail"}, 1, "codexrec replay: stale recording", ""},
		{"from the environment", []string{"CODEXREC_MAX_AGE=1h", "CODEXREC_STALE=fail"}, nil, 1, "older than the maximum age 1h0m0s", ""},
		{"a flag overrides the environment", []string{"CODEXREC_MAX_AGE=1h", "CODEXREC_STALE=fail"}, []string{"--max-age", "36500d"}, 0, "", "stale"},
		{"rerecord refused under CI", []string{"CI=true"}, []string{"--min-codex", "0.171.0", "--stale", "rerecord", "--mode", "auto"}, 1,
			"recording afresh is refused when CI is set", ""},
		{"bad age", nil, []string{"--max-age", "soon"}, 2, `--max-age "soon"`, ""},
		{"bad version", nil, []string{"--min-codex", "new"}, 2, `minimum Codex version "new"`, ""},
		{"bad action", nil, []string{"--min-codex", "0.1.0", "--stale", "panic"}, 2, `--stale "panic"`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{"replay"}, tc.args...), old)
			if strings.Contains(strings.Join(tc.args, " "), "--mode auto") {
				args = append(args, "--", "codex", "app-server")
			}
			r := runEnv(t, cleanEnv(t, tc.env...), in, "", args...)
			if r.code != tc.code || !bytes.Contains(r.stderr, []byte(tc.has)) || (tc.not != "" && bytes.Contains(r.stderr, []byte(tc.not))) {
				t.Fatalf("exit %d, want %d with %q (not %q); stderr:\n%s", r.code, tc.code, tc.has, tc.not, r.stderr)
			}
		})
	}
}

// TestReplayStaleRerecord: --stale rerecord outside CI records a stale recording
// afresh from the real codex, in place.
func TestReplayStaleRerecord(t *testing.T) {
	real := codextest.Binary(t, codexbin.Newest)
	path := filepath.Join(t.TempDir(), "old.jsonl")
	b, err := os.ReadFile(replayFixture("0.163.0", "plain"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	in := []byte(`{"id":0,"method":"initialize","params":{"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"method":"initialized"}` + "\n" + `{"id":1,"method":"model/list","params":{}}` + "\n")
	r := runEnv(t, cleanEnv(t), in, "", "replay", "--mode", "auto", "--min-codex", "0.171.0", "--stale", "rerecord", path, "--", real, "app-server")
	if r.code != 0 || !bytes.Contains(r.stderr, []byte("made by Codex 0.163.0, older than 0.171.0: recording it afresh")) ||
		!bytes.Contains(r.stderr, []byte("codexrec: mode auto: record "+path)) {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	after, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(after, []byte(`"codexVersion":"`+codexbin.Newest+`"`)) || !bytes.Contains(after, []byte(`"method":"model/list"`)) {
		t.Errorf("the recording was not made afresh (%v):\n%.600s", err, after)
	}
	// Fresh now: replayed, not recorded again.
	r = runEnv(t, cleanEnv(t), in, "", "replay", "--mode", "auto", "--min-codex", "0.171.0", "--stale", "rerecord", path, "--", real, "app-server")
	if r.code != 0 || !bytes.Contains(r.stderr, []byte("codexrec: mode auto: replay "+path)) {
		t.Errorf("replaying the fresh recording: exit %d; stderr:\n%s", r.code, r.stderr)
	}
}

// TestCheckStale: check --stale lists the stale recordings of a directory.
func TestCheckStale(t *testing.T) {
	dir := t.TempDir()
	for _, v := range []string{"0.163.0", "0.171.0"} {
		b, err := os.ReadFile(replayFixture(v, "plain"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, v+".jsonl"), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r := runCodexrec(t, "", nil, "check", "--stale", "--min-codex", "0.171.0", dir)
	want := filepath.Join(dir, "0.163.0.jsonl") + ": made by Codex 0.163.0, older than 0.171.0\n"
	if r.code != 1 || string(r.stdout) != want || !bytes.Contains(r.stderr, []byte("1 of 2 recording(s) stale")) {
		t.Errorf("exit %d, stdout %q, want %q; stderr:\n%s", r.code, r.stdout, want, r.stderr)
	}
	r = runCodexrec(t, "", nil, "check", "--stale", "--max-age", "36500d", dir)
	if r.code != 0 || len(r.stdout) != 0 {
		t.Errorf("nothing stale: exit %d, stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if r := runCodexrec(t, "", nil, "check", "--stale", dir); r.code != 2 || !bytes.Contains(r.stderr, []byte("want --max-age or --min-codex")) {
		t.Errorf("no limit: exit %d; stderr:\n%s", r.code, r.stderr)
	}
}

// TestReplayListenStale: replay --listen checks every recording it will serve before
// the first connection.
func TestReplayListenStale(t *testing.T) {
	ws := filepath.Join("..", "..", "fixtures", "hermetic", "0.163.0", "ws", "plain.jsonl")
	r := runCodexrec(t, "", nil, "replay", "--listen", "ws://127.0.0.1:0", "--min-codex", "0.171.0", "--stale", "fail", ws)
	if r.code != 1 || !bytes.Contains(r.stderr, []byte("stale recording "+ws+": made by Codex 0.163.0, older than 0.171.0")) {
		t.Errorf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
}

// TestReplayStaleInstalled: --min-codex installed is the version of the codex on
// PATH.
func TestReplayStaleInstalled(t *testing.T) {
	real := codextest.Binary(t, codexbin.Newest)
	old := replayFixture("0.163.0", "plain")
	in, _, _ := recordedClientInput(t, old)
	env := pathEnv(cleanEnv(t), filepath.Dir(real))
	r := runEnv(t, env, in, "", "replay", "--min-codex", "installed", old)
	if r.code != 0 || !bytes.Contains(r.stderr, []byte("made by Codex 0.163.0, older than "+codexbin.Newest)) {
		t.Errorf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	r = runEnv(t, cleanEnv(t, "PATH=/nonexistent"), in, "", "replay", "--min-codex", "installed", old)
	if r.code != 2 || !bytes.Contains(r.stderr, []byte("--min-codex installed:")) {
		t.Errorf("no codex on PATH: exit %d; stderr:\n%s", r.code, r.stderr)
	}
}
