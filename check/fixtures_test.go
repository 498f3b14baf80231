package check_test

import (
	"path/filepath"
	"testing"

	"codexrec/check"
)

// realBehaviour lists what the real Codex binaries do in the committed hermetic
// fixtures that trips a rule below error level, and why that severity is right.
// A finding of a rule not listed here fails the test: it must be explained first.
var realBehaviour = map[string]string{
	// Without bubblewrap on PATH, both versions log "ERROR codex_app_server: Codex could
	// not find bubblewrap on PATH" at start and carry on with the bundled one. ERROR
	// lines on stderr are counted (info) and never fail a gate: the server's log level
	// is its own business, what matters is the wire.
	check.RuleStderrError: "bubblewrap missing on PATH, logged as ERROR on stderr at start",
}

func TestFixturesClean(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(*fixturesDir, "*", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no recordings under %s (the hermetic fixtures are committed; make fixtures regenerates them)", *fixturesDir)
	}
	for _, path := range files {
		rel, _ := filepath.Rel(*fixturesDir, path)
		t.Run(rel, func(t *testing.T) {
			res, err := (&check.Checker{}).CheckFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if res.Turns == 0 {
				t.Errorf("no turn found in %s: the turn rules checked nothing", rel)
			}
			for _, f := range res.Findings {
				why, known := realBehaviour[f.Rule]
				switch {
				case f.Severity >= check.Error:
					t.Errorf("%s %s %v: %s", f.Severity, f.Rule, f.Seqs, f.Message)
				case !known:
					t.Errorf("unexplained %s %s %v: %s (explain it in realBehaviour or fix the rule)", f.Severity, f.Rule, f.Seqs, f.Message)
				default:
					t.Logf("%s %s %v: %s (known: %s)", f.Severity, f.Rule, f.Seqs, f.Message, why)
				}
			}
		})
	}
}
