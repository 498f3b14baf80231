package sanitize_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corpus "github.com/codexrec/codexrec/internal/testing/secretcorpus"
)

// TestGenCorpusVsGitleaks compares, per placement, the recall of the sanitizer and
// of the guard alone on the generated corpus with that of a gitleaks binary on the
// same unsanitized recording (scripts/gitleaks-compare.sh installs a pinned one and
// sets CODEXREC_GITLEAKS; without it the test is skipped: gitleaks is no dependency
// of the module). gitleaks only reports; it catches a case when every line of the
// case that holds a piece of the secret (every delta, for a split secret) is inside
// one of its findings. Ours must be at least as high in every placement.
func TestGenCorpusVsGitleaks(t *testing.T) {
	bin := os.Getenv("CODEXREC_GITLEAKS")
	if bin == "" {
		t.Skip("CODEXREC_GITLEAKS is not set (scripts/gitleaks-compare.sh sets it)")
	}
	cases := corpus.GenCases(genKeys(t))
	san, guard := checkGen(t, cases)

	raw, lines := genRecording(t, nil, cases)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "corpus.jsonl"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(t.TempDir(), "report.json")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "dir", dir, "--no-banner", "--exit-code", "0", "--report-format", "json", "--report-path", report, "--log-level", "error")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, out)
	}
	version, _ := exec.CommandContext(ctx, bin, "version").Output()
	if v := os.Getenv("CODEXREC_GITLEAKS_VERSION"); v != "" {
		version = []byte(v) // a binary built by go install does not know its version
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var findings []struct {
		RuleID             string
		StartLine, EndLine int
	}
	if err := json.Unmarshal(data, &findings); err != nil {
		t.Fatalf("gitleaks report: %v", err)
	}
	flagged := map[int]bool{}
	for _, f := range findings {
		for l := f.StartLine; l <= max(f.EndLine, f.StartLine); l++ {
			flagged[l] = true
		}
	}
	all := splitLines(raw)
	gl := newRecallTable()
	for i, c := range cases {
		if c.Secret == nil {
			fp := false
			for _, n := range lines[i] {
				fp = fp || flagged[n]
			}
			gl.add(c, "", fp)
			continue
		}
		split := strings.Contains(c.Placement, "split")
		leak := ""
		for _, n := range lines[i] {
			holds := split && !strings.Contains(string(all[n-1]), `"method":"command/exec"`)
			if !holds {
				l, _ := corpus.JudgeGen(c, [][]byte{all[n-1]})
				holds = l != ""
			}
			if holds && !flagged[n] {
				leak = fmt.Sprintf("line %d not flagged", n)
				break
			}
		}
		gl.add(c, leak, false)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\ngitleaks %s\n| placement | cases | sanitizer | guard alone | gitleaks |\n|---|---|---|---|---|\n", strings.TrimSpace(string(version)))
	for _, p := range slicesSorted(san.cases) {
		fmt.Fprintf(&b, "| %s | %d | %.0f%% | %.0f%% | %.0f%% |\n", p, san.cases[p], san.recall(p), guard.recall(p), gl.recall(p))
		if san.recall(p) < gl.recall(p) || guard.recall(p) < gl.recall(p) {
			t.Errorf("%s: recall below gitleaks'", p)
		}
	}
	fmt.Fprintf(&b, "near misses: %d; false positives: sanitizer %d, guard %d, gitleaks %d (lines flagged)\n", san.negatives, len(san.fps), len(guard.fps), len(gl.fps))
	t.Log(b.String())
}
