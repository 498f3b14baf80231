package main_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDashOutRefused: where -o names a file that cannot be stdout (record's stdout
// is the wire; recover publishes in place of the temporary file; upgrade's page has
// diff pages beside it), -o - is a one-line usage error, exit 2, and nothing named -
// is created.
func TestDashOutRefused(t *testing.T) {
	plain, _ := filepath.Abs(filepath.Join(fixtureRoot, "0.171.0", "plain.jsonl"))
	for name, args := range map[string][]string{
		"record":          {"record", "-o", "-", "--", "cat"},
		"record --mode":   {"record", "--mode", "record", "-o", "-", "--", "cat"},
		"record --listen": {"record", "--listen", "ws://127.0.0.1:0", "-o", "-", "--", "cat"},
		"recover":         {"recover", "-o", "-", ".plain.jsonl.1.tmp"},
		"upgrade":         {"upgrade", "--from", "0.171.0", "--to", "0.171.0", "-o", "-", plain},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			r := runCodexrec(t, dir, strings.NewReader(""), args...)
			msg := strings.TrimSuffix(string(r.stderr), "\n")
			if r.code != 2 || strings.Contains(msg, "\n") || !strings.Contains(msg, "-o -: ") || !strings.HasPrefix(msg, "codexrec "+args[0]+": ") {
				t.Errorf("exit %d, want 2 and one line saying why -o - is refused:\n%s", r.code, r.stderr)
			}
			if _, err := os.Lstat(filepath.Join(dir, "-")); err == nil {
				t.Errorf("a file named - was created")
			}
		})
	}
}

// bidiRecording is a recording made through the built binary whose frames carry a
// bidi override and a C1 control as raw UTF-8, as a client may send them.
func bidiRecording(t *testing.T, dir string) string {
	t.Helper()
	rec := filepath.Join(dir, "bidi.jsonl")
	in := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"t\":\"a\u202eb \u0085 c\"}}\n"
	if r := runCodexrec(t, dir, strings.NewReader(in), "record", "--no-validate", "-o", rec, "--", "cat"); r.code != 0 {
		t.Fatalf("record: exit %d: %s", r.code, r.stderr)
	}
	return rec
}

// TestDashOutExact: sanitize -o - writes to a pipe the very bytes -o FILE writes,
// raw bidi and C1 characters in the frames included, since a replay sends a frame
// as recorded (escaping them, as the output layer does for a terminal, keeps the
// data but not the bytes).
func TestDashOutExact(t *testing.T) {
	dir := t.TempDir()
	rec, file := bidiRecording(t, dir), filepath.Join(dir, "file.jsonl")
	if r := runCodexrec(t, dir, nil, "sanitize", rec, "-o", file); r.code != 0 {
		t.Fatalf("sanitize -o FILE: exit %d: %s", r.code, r.stderr)
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	r := runCodexrec(t, dir, nil, "sanitize", rec, "-o", "-")
	if r.code != 0 || !bytes.Equal(r.stdout, want) {
		t.Errorf("sanitize -o -: exit %d, %d bytes differing from -o FILE's %d: %s", r.code, len(r.stdout), len(want), r.stderr)
	}
	if !bytes.Contains(want, []byte("a\u202eb \u0085 c")) {
		t.Errorf("the sanitized recording lost the raw characters")
	}
}
