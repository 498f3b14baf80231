package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// TestSummaryJSON: summary --json is one JSON document with what the text says,
// the flag accepted after the file too.
func TestSummaryJSON(t *testing.T) {
	path := filepath.Join(fixtureRoot, "0.171.0", "plain.jsonl")
	for _, args := range [][]string{{"summary", "--json", path}, {"summary", path, "--json"}} {
		r := runCodexrec(t, "", nil, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		var o struct {
			File, CodexVersion, Scenario string
			Frames                       map[string]int
			Methods                      []struct {
				Dir, Kind, Method string
				Count             int
			}
			Replies []string
			Trailer *struct{ Ended string }
		}
		if err := json.Unmarshal(r.stdout, &o); err != nil {
			t.Fatalf("%v: not one JSON document: %v\n%s", args, err, r.stdout)
		}
		if o.File != path || o.CodexVersion != "0.171.0" || o.Scenario != "plain" || o.Frames["c2s"] == 0 || o.Frames["s2c"] == 0 ||
			len(o.Methods) == 0 || len(o.Replies) == 0 || o.Trailer == nil || o.Trailer.Ended == "" {
			t.Errorf("%v: %+v", args, o)
		}
	}
}

// TestFlagsAfterArguments: flags may follow the positional arguments of every
// command that takes a file; "--" still ends them (replay keeps what follows as the
// command to run).
func TestFlagsAfterArguments(t *testing.T) {
	dir := t.TempDir()
	plain, _ := filepath.Abs(filepath.Join(fixtureRoot, "0.171.0", "plain.jsonl"))
	rec, err := recorder.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	client := frameBytes(rec, wire.ClientToServer)

	r := runCodexrec(t, dir, bytes.NewReader(client), "replay", plain, "--match", "method", "--speed", "0")
	if r.code != 0 || !bytes.Contains(r.stdout, []byte(`"result"`)) {
		t.Errorf("replay FILE --match method: exit %d\n%s", r.code, r.stderr)
	}
	r = runCodexrec(t, dir, nil, "replay", plain, "--match", "bogus")
	if r.code != 2 || !strings.Contains(string(r.stderr), "--match") {
		t.Errorf("replay FILE --match bogus: exit %d, stderr %q", r.code, r.stderr)
	}
	// The README's example: the version comes after the recording. 9.9.9 is never
	// installed, so the error proves the flag was read.
	r = runCodexrec(t, dir, nil, "rerun", plain, "--codex-version", "9.9.9", "-o", filepath.Join(dir, "out.jsonl"))
	if r.code != 2 || !strings.Contains(string(r.stderr), "codex 9.9.9") || strings.Contains(string(r.stderr), "want one recording") {
		t.Errorf("rerun FILE --codex-version: exit %d, stderr %q", r.code, r.stderr)
	}
	// "--" keeps the command for --mode passthrough, its flags untouched.
	r = runCodexrec(t, dir, strings.NewReader("hello\n"), "replay", "--mode", "passthrough", filepath.Join(dir, "none.jsonl"), "--", "cat", "-u")
	if r.code != 0 || string(r.stdout) != "hello\n" {
		t.Errorf("replay --mode passthrough FILE -- cat -u: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestSanitizeToStdout: sanitize -o - writes the sanitized recording on stdout and
// no file named "-".
func TestSanitizeToStdout(t *testing.T) {
	dir := t.TempDir()
	plain, _ := filepath.Abs(filepath.Join(fixtureRoot, "0.171.0", "plain.jsonl"))
	r := runCodexrec(t, dir, nil, "sanitize", plain, "-o", "-")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	out := filepath.Join(dir, "copy.jsonl")
	if err := os.WriteFile(out, r.stdout, 0o600); err != nil {
		t.Fatal(err)
	}
	if rec := readRecording(t, out); rec.Trailer == nil || len(rec.Entries) == 0 {
		t.Errorf("stdout is not a whole recording:\n%s", r.stdout)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("files left in the working directory: %v", ents)
	}
}

// TestDiffOutput: -o writes the page without --html; -o - writes it on stdout
// instead of the report; --fail-on never turns the exit status off.
func TestDiffOutput(t *testing.T) {
	dir := t.TempDir()
	old, _ := filepath.Abs(filepath.Join(fixtureRoot, "0.163.0", "plain.jsonl"))
	nw, _ := filepath.Abs(filepath.Join(fixtureRoot, "0.171.0", "plain.jsonl"))
	page := filepath.Join(dir, "d.html")
	r := runCodexrec(t, dir, nil, "diff", old, nw, "-o", page)
	if r.code != 1 {
		t.Errorf("diff of two versions: exit %d, want 1\n%s", r.code, r.stderr)
	}
	if b, err := os.ReadFile(page); err != nil || !bytes.Contains(b, []byte("<!DOCTYPE html>")) {
		t.Errorf("-o without --html wrote no page: %v", err)
	}
	r = runCodexrec(t, dir, nil, "diff", "-o", "-", old, nw)
	if !bytes.HasPrefix(bytes.TrimSpace(r.stdout), []byte("<!DOCTYPE html>")) {
		t.Errorf("-o - did not write the page on stdout: %.200s", r.stdout)
	}
	r = runCodexrec(t, dir, nil, "diff", old, nw, "--fail-on", "never")
	if r.code != 0 || len(r.stdout) == 0 {
		t.Errorf("--fail-on never: exit %d, report %d bytes", r.code, len(r.stdout))
	}
	r = runCodexrec(t, dir, nil, "diff", old, nw, "--fail-on", "sometimes")
	if r.code != 2 {
		t.Errorf("--fail-on sometimes: exit %d, want 2", r.code)
	}
}

// TestScanJSON: scan --json is one document with each file's finds, previews
// masked; the exit status is the same as without it.
func TestScanJSON(t *testing.T) {
	dir := t.TempDir()
	secret := "sk-proj-" + strings.Repeat("Ab3dE5gH7jK9", 4)
	leaky := filepath.Join(dir, "leaky.txt")
	os.WriteFile(leaky, []byte("token "+secret+"\n"), 0o600)
	clean := filepath.Join(dir, "clean.txt")
	os.WriteFile(clean, []byte("nothing here\n"), 0o600)
	r := runCodexrec(t, dir, nil, "scan", "--json", clean, leaky)
	if r.code != 3 {
		t.Errorf("exit %d, want 3\n%s", r.code, r.stderr)
	}
	if bytes.Contains(r.stdout, []byte(secret)) {
		t.Fatal("the secret reached stdout")
	}
	var rep struct {
		Leaks int
		Files []struct {
			File  string
			Leaks []struct{ Rule, Preview string }
		}
	}
	if err := json.Unmarshal(r.stdout, &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if rep.Leaks == 0 || len(rep.Files) != 2 || len(rep.Files[0].Leaks) != 0 || len(rep.Files[1].Leaks) != rep.Leaks || rep.Files[1].Leaks[0].Rule == "" {
		t.Errorf("report %+v", rep)
	}
}

// TestUpgradeMissingBinary: a codex version that is not installed is a usage error
// (exit 2) naming it, before anything runs.
func TestUpgradeMissingBinary(t *testing.T) {
	plain := filepath.Join(fixtureRoot, "0.171.0", "plain.jsonl")
	r := runCodexrec(t, t.TempDir(), nil, "upgrade", "--from", "0.171.0", "--to", "9.9.9", plain)
	if r.code != 2 || !strings.Contains(string(r.stderr), "codex 9.9.9") {
		t.Errorf("exit %d, want 2 naming codex 9.9.9; stderr %q", r.code, r.stderr)
	}
}

// TestOnePrefix: a command's error says its command once, and rerun speaks as
// rerun.
func TestOnePrefix(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		word string // said once
		want string
	}{
		{[]string{"validate", "missing.jsonl"}, "validate:", "missing.jsonl"},
		{[]string{"replay", "missing.jsonl"}, "replay:", "missing.jsonl"},
		{[]string{"schema", "diff", "9.9.9", "0.171.0"}, "schema diff:", "codex 9.9.9"},
		// The file is missing: said so, not that its name is wrong.
		{[]string{"recover", "missing.tmp"}, "recover:", "no such file"},
		// /proc exists but takes no files.
		{[]string{"sanitize", filepath.Join("..", "..", "fixtures", "hermetic", "0.171.0", "plain.jsonl"), "-o", "/proc/x"}, "sanitize:", "cannot create files in directory /proc"},
	} {
		args := tc.args
		if args[0] == "sanitize" {
			abs, _ := filepath.Abs(args[1])
			args = []string{"sanitize", abs, "-o", "/proc/x"}
		}
		r := runCodexrec(t, dir, nil, args...)
		if r.code != 2 || strings.Count(string(r.stderr), tc.word) != 1 || !strings.Contains(string(r.stderr), tc.want) {
			t.Errorf("%v: exit %d, stderr %q", tc.args, r.code, r.stderr)
		}
	}
}

// TestCompletion: the bash script completes commands and a command's flags when
// bash runs it; zsh and fish get theirs; another shell is a usage error.
func TestCompletion(t *testing.T) {
	r := runCodexrec(t, "", nil, "completion", "bash")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	script := filepath.Join(t.TempDir(), "c.bash")
	os.WriteFile(script, r.stdout, 0o600)
	if bash, err := exec.LookPath("bash"); err == nil {
		out, err := exec.Command(bash, "-c", `source "$0"
COMP_WORDS=(codexrec sum); COMP_CWORD=1; _codexrec; echo "${COMPREPLY[@]}"
COMP_WORDS=(codexrec diff --ignore-m); COMP_CWORD=2; _codexrec; echo "${COMPREPLY[@]}"`, script).CombinedOutput()
		if err != nil || string(out) != "summary\n--ignore-moves\n" {
			t.Errorf("bash completion: %v %q", err, out)
		}
	}
	for _, sh := range []string{"zsh", "fish"} {
		r := runCodexrec(t, "", nil, "completion", sh)
		if r.code != 0 || !bytes.Contains(r.stdout, []byte("summary")) || !bytes.Contains(r.stdout, []byte("ignore-moves")) {
			t.Errorf("%s: exit %d\n%s", sh, r.code, r.stdout)
		}
	}
	if r := runCodexrec(t, "", nil, "completion", "tcsh"); r.code != 2 {
		t.Errorf("tcsh: exit %d, want 2", r.code)
	}
}

// TestShowJSON: show --json is one JSON document of the frames the filters keep.
func TestShowJSON(t *testing.T) {
	path := filepath.Join(fixtureRoot, "0.171.0", "plain.jsonl")
	r := runCodexrec(t, "", nil, "show", path, "--json", "--method", "turn/*")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var doc struct {
		CodexVersion string
		Frames       []struct {
			Seq         int64
			Dir, Method string
			Summary     string
			Pair        int64
		}
		Trailer *struct{ Ended string }
	}
	if err := json.Unmarshal(r.stdout, &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if doc.CodexVersion != "0.171.0" || len(doc.Frames) == 0 || doc.Trailer == nil {
		t.Fatalf("document %+v", doc)
	}
	paired := false
	for _, f := range doc.Frames {
		if !strings.HasPrefix(f.Method, "turn/") {
			t.Errorf("frame %d %s kept by --method turn/*", f.Seq, f.Method)
		}
		paired = paired || f.Pair != 0
	}
	if !paired {
		t.Error("no response is paired with its request")
	}
	if r := runCodexrec(t, "", nil, "show", path, "--json", "--follow"); r.code != 2 {
		t.Errorf("--json --follow: exit %d, want 2", r.code)
	}
}

// TestDirPairsFromOneShell: record -o DIR/ then replay DIR/, typed at one
// interactive shell, name the same recording: each command typed at a prompt is a
// run of its own. util-linux script gives bash a terminal, as a user's has.
func TestDirPairsFromOneShell(t *testing.T) {
	scriptCmd, err := exec.LookPath("script")
	if err != nil {
		t.Skip("no script(1) to give a shell a terminal")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	os.WriteFile(in, []byte(`{"id":1,"method":"initialize","params":{}}`+"\n"), 0o600)
	lines := fmt.Sprintf("cd %q\n%q record -o rec/ -- cat < in > /dev/null 2>> log; echo rec=$? >> status\n%q replay rec/ < in > out 2>> log; echo rep=$? >> status\nexit\n",
		dir, codexrecBin, codexrecBin)
	cmd := exec.Command(scriptCmd, "-qec", "bash --norc --noprofile -i", "/dev/null")
	cmd.Stdin = strings.NewReader(lines)
	cmd.Env = append(os.Environ(), "CODEXREC_RUN=", "CI=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	status, _ := os.ReadFile(filepath.Join(dir, "status"))
	log, _ := os.ReadFile(filepath.Join(dir, "log"))
	if string(status) != "rec=0\nrep=0\n" || !strings.Contains(string(log), "mode replay: replay rec/001-initialize.jsonl") {
		t.Errorf("status %q\nlog:\n%s", status, log)
	}
}
