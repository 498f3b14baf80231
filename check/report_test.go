package check_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/codexrec/codexrec/check"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// reportResults are hand-made results, so the golden reports change only when the
// writers do (the fixtures are regenerated with new ids on every capture).
func reportResults() []*check.Result {
	return []*check.Result{
		{File: "fixtures/session.jsonl", CodexVersion: "0.171.0", Frames: 38, Segments: 1, Turns: 2, TurnStatus: map[string]int{"interrupted": 1}, Findings: []check.Finding{
			{Rule: check.RuleStderrError, Severity: check.Info, Seqs: []int64{3}, Dir: "stderr",
				Message: "2026-11-29T10:46:53Z ERROR codex_app_server: Codex could not find bubblewrap on PATH"},
			{Rule: check.RuleEarlyCompletion, Severity: check.Warning, Seqs: []int64{30, 31}, Thread: "th-1", Turn: "tu-1",
				Message: "turn/completed (frame 30) arrived before the turn/start response (frame 31)"},
			{Rule: check.RuleTurnIncomplete, Severity: check.Error, Seqs: []int64{13, 15}, Thread: "th-1", Turn: "tu-2",
				Message: "no turn/completed (turn/start answered at frame 13, turn/started at frame 15); the server exited"},
			{Rule: "schema/undeclared-field", Severity: check.Warning, Seqs: []int64{16}, Dir: "s2c", Method: "item/started",
				Pointer: "/params/item/startedAtMs", Message: "not declared by the codex 0.163.0 schema"},
		}},
		{File: "fixtures/clean & <quoted>.jsonl", Frames: 2, Segments: 2, Findings: []check.Finding{
			{Rule: check.RuleServerExit, Severity: check.Error, Segment: 2, Message: "server lifetime 2 was killed by SIGKILL (exit code 137)"},
		}},
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", name, got)
	}
}

func TestReportGolden(t *testing.T) {
	res := reportResults()
	var text, js, junit bytes.Buffer
	if err := check.WriteText(&text, res, check.Error); err != nil {
		t.Fatal(err)
	}
	if err := check.WriteJSON(&js, res, check.Warning); err != nil {
		t.Fatal(err)
	}
	if err := check.WriteJUnit(&junit, res, check.Warning, map[string]bool{check.RuleANSI: true}); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.txt", text.Bytes())
	golden(t, "report.json", js.Bytes())
	golden(t, "report.xml", junit.Bytes())
	if !check.Failed(res, check.Error) || check.Failed(res[:1], check.Error+1) {
		t.Error("Failed disagrees with the findings")
	}
}
