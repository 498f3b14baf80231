package record_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/sanitize"
)

// TestRecoverGuard: a killed recorder's file is published behind the guard, its
// secret redacted (a *sanitize.RedactedError naming the published file); without
// a guard it is published as it was.
func TestRecoverGuard(t *testing.T) {
	key := "sk-proj-" + strings.Repeat("Zq7Wx", 20)
	data := `{"type":"header","format":1,"codexrec":"0.1.0-dev","started":"2026-12-01T10:00:00Z","command":["cat"]}` + "\n" +
		`{"type":"frame","seq":1,"t":0.001,"dir":"c2s","msg":{"id":1,"method":"x","params":{"k":"` + key + `"}}}` + "\n"
	z, err := sanitize.New(sanitize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		guard  *sanitize.Sanitizer
		leaked bool
	}{{"guarded", z, false}, {"unguarded", nil, true}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tmp := filepath.Join(dir, ".s.jsonl.123.tmp")
			if err := os.WriteFile(tmp, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
			where, tr, err := record.Recover(tmp, filepath.Join(dir, "s.jsonl"), record.RecoverOptions{Guard: tc.guard})
			var re *sanitize.RedactedError
			if tc.guard != nil && (!errors.As(err, &re) || re.File != where) || tc.guard == nil && err != nil {
				t.Fatalf("Recover: %v", err)
			}
			if tr == nil || tr.Ended != "proxy-killed" {
				t.Fatalf("trailer %+v", tr)
			}
			out, err := os.ReadFile(where)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(out), key) != tc.leaked {
				t.Errorf("published recording holds the key: %v, want %v:\n%s", !tc.leaked, tc.leaked, out)
			}
		})
	}
}
