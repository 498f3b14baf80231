package main_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNeverPrintedRaw: a recording made with sanitizing and the guard off holds a key
// and terminal escapes (a color, an OSC window title, a carriage return); show, in
// summary and raw mode, and validate print neither the key nor a raw escape.
func TestNeverPrintedRaw(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "raw.jsonl")
	key := "sk-proj-" + strings.Repeat("Zq7Wx", 20)
	in := `{"id":1,"method":"turn/start","params":{"input":[{"type":"text","text":"\u001b]0;owned\u0007\u001b[31mkey ` + key + `\r"}]}}` + "\n"
	r := runCodexrec(t, dir, strings.NewReader(in), "record", "--no-sanitize", "--no-leak-guard", "-o", out, "--", "cat")
	if r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	if data, _ := os.ReadFile(out); !bytes.Contains(data, []byte(key)) {
		t.Fatalf("the test recording lacks the key")
	}
	for _, args := range [][]string{{"show", out}, {"show", "--raw", out}, {"validate", out}} {
		r := runCodexrec(t, dir, nil, args...)
		if r.code > 1 || len(r.stdout) == 0 || !bytes.Contains(r.stdout, []byte("turn/start")) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q: want the frames listed", args, r.code, r.stdout, r.stderr)
		}
		for name, b := range map[string][]byte{"stdout": r.stdout, "stderr": r.stderr} {
			if bytes.Contains(b, []byte(key[:20])) {
				t.Errorf("%v: %s shows the key:\n%s", args, name, b)
			}
			if bytes.ContainsAny(b, "\x1b\x07\r") {
				t.Errorf("%v: %s carries a raw control character: %q", args, name, b)
			}
		}
	}
}
