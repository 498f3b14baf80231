package main_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/internal/codexbin"
)

// TestReplayMatchRules runs the built binary on the committed plain capture with a
// client whose prompt changed since recording: refused, with the rule that would
// accept it named; accepted by that rule (or a broader one); a rule for another
// method or a bad pointer does not help.
func TestReplayMatchRules(t *testing.T) {
	plain := replayFixture(codexbin.Newest, "plain")
	in, out, _ := recordedClientInput(t, plain)
	wrong := bytes.Replace(in, []byte("Say hello to codexrec."), []byte("Say goodbye."), 1)
	// The server echoes the prompt (the user message item): the live one is spliced in.
	echoed := bytes.ReplaceAll(out, []byte("Say hello to codexrec."), []byte("Say goodbye."))
	cwd := t.TempDir()
	echoed = restoredPaths(t, echoed, cwd)
	for _, tc := range []struct {
		name string
		args []string
		code int
		has  string
	}{
		{"refused, naming the rule", nil, 1, "accepted by: --match method (compares kind and method only); or --ignore turn/start:/params/input/*/text (leave these values out when matching turn/start)"},
		{"per-method ignore", []string{"--ignore", "turn/start:/params/input/*/text"}, 0, ""},
		{"ignore for every method, strict", []string{"--match", "strict", "--ignore", "/params/input"}, 0, ""},
		{"match-only", []string{"--match-only", "turn/start:/params/threadId"}, 0, ""},
		{"rule of another method", []string{"--ignore", "thread/start:/params/input"}, 1, "/params/input/0/text"},
		{"bad pointer", []string{"--ignore", "turn/start:params"}, 2, "--ignore: ignore rule \"turn/start:params\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCodexrec(t, "", bytes.NewReader(wrong), append(append([]string{"replay", "--cwd", cwd}, tc.args...), plain)...)
			if r.code != tc.code || !bytes.Contains(r.stderr, []byte(tc.has)) {
				t.Fatalf("exit %d, want %d with %q; stderr:\n%s", r.code, tc.code, tc.has, r.stderr)
			}
			if tc.code == 0 && !bytes.Equal(r.stdout, echoed) {
				t.Errorf("accepted, but stdout is not the recording's server frames with the live prompt echoed:\n%.1500s", r.stdout)
			}
		})
	}
}

// TestReplayRepeats: a client calling model/list three times against a recording
// that has it once gets the recorded answer three times with the built binary;
// --no-repeats refuses the second and third.
func TestReplayRepeats(t *testing.T) {
	rec := filepath.Join("..", "..", "fixtures", "examples", "model-list.jsonl")
	in := strings.Join([]string{
		`{"id":0,"method":"initialize","params":{"clientInfo":{"name":"docs","version":"1"}}}`,
		`{"method":"initialized"}`,
		`{"id":1,"method":"model/list","params":{}}`,
		`{"id":5,"method":"model/list","params":{}}`,
		`{"id":2,"method":"config/read","params":{}}`,
		`{"id":6,"method":"model/list","params":{}}`,
	}, "\n") + "\n"
	r := runCodexrec(t, "", strings.NewReader(in), "replay", rec)
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	results := map[string]string{}
	for _, l := range strings.Split(string(r.stdout), "\n") {
		if id := gjson.Get(l, "id"); id.Exists() && gjson.Get(l, "result.data").Exists() {
			results[id.Raw] = gjson.Get(l, "result").Raw
		}
	}
	if len(results) != 3 || results["1"] != results["5"] || results["1"] != results["6"] {
		t.Errorf("model/list answers by id: %d of 3, equal: %v", len(results), results["1"] == results["5"] && results["1"] == results["6"])
	}
	if n := strings.Count(string(r.stderr), "repeated: answered as recorded (seq 3)"); n != 2 {
		t.Errorf("%d repeats reported, want 2:\n%s", n, r.stderr)
	}
	r = runCodexrec(t, "", strings.NewReader(in), "replay", "--no-repeats", rec)
	if r.code != 1 || !bytes.Contains(r.stderr, []byte("accepted by: no --no-repeats")) {
		t.Errorf("--no-repeats: exit %d; stderr:\n%s", r.code, r.stderr)
	}
}

// TestCheckAssertions: the built binary's assertions fail the gate, each under its
// rule id in the text, JUnit and SARIF reports, and pass where they hold.
func TestCheckAssertions(t *testing.T) {
	dir := t.TempDir()
	plain := replayFixture(codexbin.Newest, "plain")
	junit, sarif := filepath.Join(dir, "r.xml"), filepath.Join(dir, "r.sarif")
	r := runCodexrec(t, "", nil, "check", "--expect-method", "thread/fork", "--forbid-method", "turn/start", "--max-turn-duration", "1ms",
		"--expect-approval", "--junit", junit, "--sarif", sarif, plain)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1; stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	x, _ := os.ReadFile(junit)
	s, _ := os.ReadFile(sarif)
	for _, id := range []string{"expect-method", "forbid-method", "max-turn-duration", "expect-approval"} {
		if !bytes.Contains(r.stdout, []byte("error   "+id+" (1)")) {
			t.Errorf("text report lacks %s:\n%s", id, r.stdout)
		}
		if !bytes.Contains(x, []byte(`<failure message="`+id+`: 1 finding"`)) {
			t.Errorf("JUnit lacks a failed %s", id)
		}
		if !bytes.Contains(s, []byte(`"ruleId": "`+id+`"`)) {
			t.Errorf("SARIF lacks a %s result", id)
		}
	}
	r = runCodexrec(t, "", nil, "check", "--expect-method", "turn/start", "--forbid-method", "thread/fork", "--max-turn-duration", "1h",
		"--junit", junit, plain)
	if x, _ := os.ReadFile(junit); r.code != 0 || !bytes.Contains(x, []byte(`<testcase name="expect-method"`)) || bytes.Contains(x, []byte(`name="expect-approval"`)) {
		t.Errorf("assertions that hold: exit %d; stdout:\n%s\nJUnit:\n%s", r.code, r.stdout, x)
	}
}
