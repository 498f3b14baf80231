package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecoverRedacts: recovering a leftover recording that holds a key publishes it
// with the key redacted by the guard (exit 3, the finding located and masked), as
// record does: a guard finding never costs the session.
func TestRecoverRedacts(t *testing.T) {
	dir := t.TempDir()
	key := "sk-proj-" + strings.Repeat("Zq7Wx", 20)
	tmp := filepath.Join(dir, ".s.jsonl.123.tmp")
	data := `{"type":"header","format":1,"codexrec":"0.1.0-dev","started":"2026-12-01T10:00:00Z","command":["cat"]}` + "\n" +
		`{"type":"frame","seq":1,"t":0.001,"dir":"c2s","msg":{"id":1,"method":"x","params":{"k":"` + key + `"}}}` + "\n"
	if err := os.WriteFile(tmp, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runCodexrec(t, dir, nil, "recover", tmp)
	if r.code != 3 || !strings.Contains(string(r.stderr), "openai-key  seq 1  /msg/params/k  sk-p…") || strings.Contains(string(r.stderr), key[:16]) {
		t.Fatalf("recover: exit %d, stderr %s", r.code, r.stderr)
	}
	out, err := os.ReadFile(filepath.Join(dir, "s.jsonl"))
	if err != nil {
		t.Fatalf("not published: %v", err)
	}
	if strings.Contains(string(out), key[8:24]) || !strings.Contains(string(out), "<redacted:openai-key:") {
		t.Errorf("published recording not redacted:\n%s", out)
	}
}
