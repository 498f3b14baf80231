package main_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestExportCommand: export writes a 0600 file, refuses to replace it without
// --force, writes to stdout with -o -, and a bad format is a usage error.
func TestExportCommand(t *testing.T) {
	src := filepath.Join(fixtureRoot, "0.171.0", "approval-accept.jsonl")
	out := filepath.Join(t.TempDir(), "session.har")
	res := runCodexrec(t, "", nil, "export", "--format", "har", src, "-o", out)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	fi, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	var har struct {
		Log struct{ Entries []json.RawMessage }
	}
	if b, _ := os.ReadFile(out); json.Unmarshal(b, &har) != nil || len(har.Log.Entries) != 1 {
		t.Errorf("not a HAR log of one entry: %.200s", b)
	}
	if res := runCodexrec(t, "", nil, "export", "--format", "har", src, "-o", out); res.code != 2 || !strings.Contains(string(res.stderr), "exists") {
		t.Errorf("second export: exit %d %s", res.code, res.stderr)
	}
	if res := runCodexrec(t, "", nil, "export", "--format", "jsonl", src, "-o", out, "--force"); res.code != 0 {
		t.Errorf("--force: exit %d %s", res.code, res.stderr)
	}
	res = runCodexrec(t, "", nil, "export", "--format=otlp", "-o", "-", src)
	if res.code != 0 || !bytes.Contains(res.stdout, []byte(`"resourceSpans"`)) {
		t.Errorf("-o -: exit %d %.200s %s", res.code, res.stdout, res.stderr)
	}
	// --endpoint posts the traces to an OTLP/HTTP receiver (a stand-in here: no
	// collector is installed where the tests run).
	var posted atomic.Int32
	rx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/v1/traces" && bytes.Contains(b, []byte(`"resourceSpans"`)) {
			posted.Add(1)
		}
	}))
	defer rx.Close()
	if res := runCodexrec(t, "", nil, "export", "--format", "otlp", "--endpoint", rx.URL, src); res.code != 0 || posted.Load() != 1 {
		t.Errorf("--endpoint: exit %d, %d posts: %s", res.code, posted.Load(), res.stderr)
	}
	if res := runCodexrec(t, "", nil, "export", "--format", "har", "--endpoint", rx.URL, src); res.code != 2 {
		t.Errorf("--endpoint with har: exit %d", res.code)
	}
	res = runCodexrec(t, "", nil, "export", "--format", "csv", src, "-o", "-")
	if res.code != 2 || !strings.HasPrefix(string(res.stderr), "codexrec export: ") || len(res.stdout) != 0 {
		t.Errorf("bad format: exit %d %q", res.code, res.stderr)
	}
}
