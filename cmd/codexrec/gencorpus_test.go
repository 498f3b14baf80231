package main_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	corpus "github.com/codexrec/codexrec/internal/testing/secretcorpus"
)

// TestGenCorpusRecord sends the generated corpus (real keys, signed JWTs,
// checksummed tokens, the newer providers and command-line flags, in every
// placement, and its near misses) through `record`, as the client's lines (text lines
// as the text stream) to a server that reads them and answers nothing (an echoing
// `cat` would interleave each delta stream with its own echo, one item id in both
// directions, which no session has): with the
// defaults nothing of a secret survives anywhere in the recording and no near miss is
// changed, exit 0; with --no-sanitize the guard redacts everything in place and
// publishes, exit 3, never a quarantine.
func TestGenCorpusRecord(t *testing.T) {
	cases := corpus.GenCases(corpus.CommittedKeys())
	var in strings.Builder
	for _, c := range cases {
		for _, f := range c.Frames {
			in.WriteString(f.Line)
			in.WriteByte('\n')
		}
	}
	dir := t.TempDir()
	for _, mode := range []struct {
		name string
		args []string
		code int
	}{
		{"sanitized", nil, 0},
		{"guard-alone", []string{"--no-sanitize"}, 3},
	} {
		out := filepath.Join(dir, mode.name+".jsonl")
		args := append(append([]string{"record"}, mode.args...), "-o", out, "--", "sh", "-c", "cat >/dev/null")
		r := runCodexrec(t, dir, strings.NewReader(in.String()), args...)
		if r.code != mode.code {
			t.Fatalf("%s: exit %d, want %d; stderr:\n%.2000s", mode.name, r.code, mode.code, r.stderr)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("%s: not published: %v", mode.name, err)
		}
		if ms, _ := filepath.Glob(filepath.Join(dir, "*quarantine*")); len(ms) > 0 {
			t.Errorf("%s: quarantined: %v", mode.name, ms)
		}
		leaks, fps := corpus.JudgeGenFile(data, cases)
		var lines []string
		for i, l := range leaks {
			lines = append(lines, cases[i].Kind+"/"+cases[i].Placement+": "+l)
		}
		for i := range fps {
			lines = append(lines, "near miss changed: "+cases[i].Kind+"/"+cases[i].Placement)
		}
		sort.Strings(lines)
		for _, l := range lines {
			t.Errorf("%s: %s", mode.name, l)
		}
		t.Logf("%s: %d cases, %d leaked, %d near misses changed, %d bytes recorded", mode.name, len(cases), len(leaks), len(fps), len(data))
		// codexrec's own messages (the guard's findings) never show a secret.
		var own strings.Builder
		for _, l := range strings.Split(string(r.stderr), "\n") {
			if strings.HasPrefix(l, "codexrec") || strings.HasPrefix(l, "  ") && strings.Contains(l, "chars)") {
				own.WriteString(l + "\n")
			}
		}
		for _, s := range corpus.GenSecrets(corpus.CommittedKeys()) {
			for _, p := range s.Pieces {
				if strings.Contains(own.String(), p) {
					t.Errorf("%s: codexrec's messages show %s's secret", mode.name, s.Kind)
					break
				}
			}
		}
	}
}
