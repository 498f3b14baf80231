package replay_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/wire"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// liveSecret is shaped like an OpenAI project key; it must never be printed.
const liveSecret = "sk-proj-Zq4VbN8sLm2XcT6yHw0RdK3jPf9GuA1eIo7"

// TestDiagnosticsGolden pins what a user reads on stderr when the client departs
// from the recording: one block per mismatch, then the unused frames at EOF.
// testdata/plain.jsonl is a copy of the plain capture from codex 0.171.0
// (fixtures/hermetic), frozen so that regenerating the fixtures leaves these golden
// files alone. Each case sends the recorded client's lines through edit, which may
// change a line, drop it ("") or send others before it.
func TestDiagnosticsGolden(t *testing.T) {
	for _, tc := range []struct {
		name   string
		srv    replay.Server
		edit   func(method, line string) []string
		absent []string // what the log must not hold
	}{
		{name: "changed-prompt", edit: func(method, line string) []string {
			if method == "turn/start" {
				line = strings.Replace(line, `"Say hello to codexrec."`, `"Say goodbye."`, 1)
				line = strings.Replace(line, `"type":"text"`, `"type":"text","extra":true`, 1)
			}
			return []string{line}
		}},
		{name: "missing-notification", srv: replay.Server{Strict: true}, edit: func(method, line string) []string {
			if method == "initialized" {
				return nil
			}
			return []string{line}
		}},
		{name: "reordered-request", edit: reorder("turn/start", "thread/start")},
		{name: "live-secret", absent: []string{liveSecret, "hunter2-plain-value"}, edit: func(method, line string) []string {
			if method == "turn/start" {
				line = strings.Replace(line, `"Say hello to codexrec."`, `"my key is `+liveSecret+`"`, 1)
				line = strings.Replace(line, `"params":{`, `"params":{"apiKey":"hunter2-plain-value",`, 1)
			}
			return []string{line}
		}},
		{name: "placeholder-as-recorded", edit: func(method, line string) []string {
			if method == "thread/start" {
				line = strings.Replace(line, `"sandbox":"read-only"`, `"sandbox":"<cwd>"`, 1)
			}
			return []string{line}
		}, absent: []string{`\u003c`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := load(t, filepath.Join("testdata", "plain.jsonl"), 0)
			srv := tc.srv
			srv.Script = sc
			s := serve(t, &srv)
			var held []string
			for _, cf := range sc.Client {
				for _, line := range tc.edit(cf.Msg.Method, strings.TrimSuffix(string(cf.Line), "\n")) {
					held = append(held, line)
					s.send(line)
					if m := wire.Classify([]byte(line)); m.Kind == wire.KindRequest {
						s.response(string(m.ID))
					}
				}
			}
			s.finish()
			s.rest()
			got := s.log.String()
			for _, a := range tc.absent {
				if strings.Contains(got, a) {
					t.Errorf("the log holds %q:\n%s", a, got)
				}
			}
			golden := filepath.Join("testdata", "diagnostics", tc.name+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestDiagnosticsGolden -update)", err)
			}
			if got != string(want) {
				t.Errorf("diagnostics differ from %s (-update rewrites it):\ngot:\n%s\nwant:\n%s", golden, got, want)
			}
		})
	}
}

// reorder sends the recorded line of method a just before the one of method b
// (which must come first in the recording).
func reorder(a, b string) func(method, line string) []string {
	var early string
	return func(method, line string) []string {
		switch method {
		case b:
			early = line
			return nil
		case a:
			return []string{line, early}
		}
		return []string{line}
	}
}
