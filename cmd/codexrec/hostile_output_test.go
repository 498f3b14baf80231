package main_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/testing/hostile"
)

// TestHostileRecordingEveryCommand runs every command that reads a recording on a
// hostile one (escapes and secrets in every string field, garbage lines, duplicate
// ids) with the built binary: no byte of what reaches stdout, stderr or a page is a
// terminal control, and no secret is shown, unless --reveal (secrets shown, controls
// still escaped) or --json (values as recorded, as JSON escapes).
func TestHostileRecordingEveryCommand(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	if err := os.WriteFile(a, hostile.TerminalRecording(3, 40), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, hostile.TerminalRecording(2000, 2048), 0o600); err != nil {
		t.Fatal(err)
	}
	page := func(name string) string { return filepath.Join(dir, name) }
	// The client's side of the recording, for replay: its c2s messages.
	client := clientLines(t, a)
	cases := []struct {
		args   []string
		stdin  string
		page   string // a page the command writes
		reveal bool   // secrets may be shown
		json   bool   // stdout is JSON: values as recorded
	}{
		{args: []string{"show", a}},
		{args: []string{"show", "--raw", a}},
		{args: []string{"summary", a}},
		{args: []string{"check", a}},
		{args: []string{"check", "--json", a}, json: true},
		{args: []string{"diff", a, b}},
		{args: []string{"diff", "--json", a, b}, json: true},
		{args: []string{"diff", "--html", "-o", page("diff.html"), a, b}, page: page("diff.html")},
		{args: []string{"view", "-o", page("view.html"), a}, page: page("view.html")},
		{args: []string{"view", "-o", "-", a}, json: true},
		{args: []string{"validate", a}},
		{args: []string{"validate", "--json", a}, json: true},
		{args: []string{"scan", a}},
		{args: []string{"show", "--reveal", a}, reveal: true},
		{args: []string{"view", "--reveal", "-o", page("reveal.html"), a}, page: page("reveal.html"), reveal: true},
		{args: []string{"replay", a}, stdin: client},
		{args: []string{"summary", "--json", a}, json: true},
		{args: []string{"show", "--json", a}, json: true},
		{args: []string{"export", "--format", "har", "-o", "-", a}, json: true},
		{args: []string{"export", "--format", "otlp", "-o", "-", a}, json: true},
		{args: []string{"export", "--format", "jsonl", "-o", "-", a}, json: true},
		{args: []string{"scenario", "from-recording", a}, json: true},
		{args: []string{"check", "--stale", "--max-age", "1s", a}},
	}
	for _, c := range cases {
		r := runCodexrec(t, dir, strings.NewReader(c.stdin), c.args...)
		if r.code > 1 && c.args[0] != "scan" && c.args[0] != "replay" {
			t.Errorf("%v: exit %d: %s", c.args, r.code, r.stderr)
		}
		if len(r.stdout)+len(r.stderr) == 0 {
			t.Errorf("%v: printed nothing", c.args)
		}
		outputs := map[string][]byte{"stderr": r.stderr}
		if c.args[0] != "replay" { // replay's stdout is the wire: the recorded answers as they were
			outputs["stdout"] = r.stdout
		}
		if c.page != "" {
			p, err := os.ReadFile(c.page)
			if err != nil {
				t.Errorf("%v: %v", c.args, err)
			}
			outputs["page"] = p
		}
		for name, out := range outputs {
			if i := bytes.IndexAny(out, "\x1b\x07\r\u009b\u202e"); i >= 0 {
				t.Errorf("%v: %s carries a raw control at byte %d: %q", c.args, name, i, out[max(i-40, 0):min(i+40, len(out))])
			}
			if c.reveal || c.json && name == "stdout" {
				continue
			}
			for _, s := range hostile.Secrets {
				if bytes.Contains(out, []byte(s[:12])) {
					t.Errorf("%v: %s shows the secret %.8s...", c.args, name, s)
				}
			}
		}
		if c.reveal && !bytes.Contains(outputs["stdout"], []byte(hostile.Secrets[0])) && !bytes.Contains(outputs["page"], []byte(hostile.Secrets[0])) {
			t.Errorf("%v: --reveal does not show the recorded value", c.args)
		}
		if c.json && c.args[0] != "view" && !json.Valid(r.stdout) && !validLines(r.stdout) {
			t.Errorf("%v: --json output is not JSON: %.200q", c.args, r.stdout)
		}
	}
}

// clientLines is the recording's c2s messages, one a line.
func clientLines(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, line := range bytes.Split(data, []byte("\n")) {
		var e struct {
			Dir string          `json:"dir"`
			Msg json.RawMessage `json:"msg"`
		}
		if json.Unmarshal(line, &e) == nil && e.Dir == "c2s" && len(e.Msg) > 0 {
			b.Write(e.Msg)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func validLines(b []byte) bool {
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		if !json.Valid(l) {
			return false
		}
	}
	return true
}
