package main_test

import (
	"bytes"
	"testing"

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
	for _, tc := range []struct {
		name string
		args []string
		code int
		has  string
	}{
		{"refused, naming the rule", nil, 1, "accepted by: --ignore turn/start:/params/input/*/text (leave these values out when matching turn/start); or --match method"},
		{"per-method ignore", []string{"--ignore", "turn/start:/params/input/*/text"}, 0, ""},
		{"ignore for every method, strict", []string{"--match", "strict", "--ignore", "/params/input"}, 0, ""},
		{"match-only", []string{"--match-only", "turn/start:/params/threadId"}, 0, ""},
		{"rule of another method", []string{"--ignore", "thread/start:/params/input"}, 1, "/params/input/0/text"},
		{"bad pointer", []string{"--ignore", "turn/start:params"}, 2, "--ignore: ignore rule \"turn/start:params\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCodexrec(t, "", bytes.NewReader(wrong), append(append([]string{"replay"}, tc.args...), plain)...)
			if r.code != tc.code || !bytes.Contains(r.stderr, []byte(tc.has)) {
				t.Fatalf("exit %d, want %d with %q; stderr:\n%s", r.code, tc.code, tc.has, r.stderr)
			}
			if tc.code == 0 && !bytes.Equal(r.stdout, echoed) {
				t.Errorf("accepted, but stdout is not the recording's server frames with the live prompt echoed:\n%.1500s", r.stdout)
			}
		})
	}
}
