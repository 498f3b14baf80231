package main_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
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
