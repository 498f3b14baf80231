package replay_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/replay"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestDiagnosticsGolden pins what a user reads on stderr: a mismatch, then the unused
// frames at EOF. testdata/plain.jsonl is a copy of the plain capture from codex
// 0.171.0 (fixtures/hermetic), frozen so that regenerating the fixtures leaves this
// golden file alone.
func TestDiagnosticsGolden(t *testing.T) {
	sc := load(t, filepath.Join("testdata", "plain.jsonl"), 0)
	log := &syncBuffer{}
	s := serve(t, &replay.Server{Script: sc, Log: log})
	for _, cf := range sc.Client {
		line := strings.TrimSuffix(string(cf.Line), "\n")
		if cf.Msg.Method == "turn/start" {
			line = strings.Replace(line, `"Say hello to codexrec."`, `"Say goodbye."`, 1)
			line = strings.Replace(line, `"type":"text"`, `"type":"text","extra":true`, 1)
		}
		s.send(line)
		if cf.Msg.Method != "" && cf.Msg.ID != "" {
			s.response(string(cf.Msg.ID))
		}
	}
	s.finish()
	s.rest()
	golden := filepath.Join("testdata", "diagnostics.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(log.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestDiagnosticsGolden -update)", err)
	}
	if log.String() != string(want) {
		t.Errorf("diagnostics differ from %s (-update rewrites it):\ngot:\n%s\nwant:\n%s", golden, log, want)
	}
}
