package sanitize_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/sanitize"
)

func urlQuery(s string) string { return url.QueryEscape(s) }

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestPathMaps(t *testing.T) {
	z, err := sanitize.New(sanitize.Options{Maps: []sanitize.Map{
		{From: "/tmp", To: "<tmp>"},
		{From: "/tmp/codexrec-capture-1/work", To: "<workspace>"},
		{From: "/tmp/codexrec-capture-1/home", To: "<codex-home>"},
		{From: "/home/ann", To: "<home>"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ in, want string }{
		{`{"result":{"thread":{"cwd":"/tmp/codexrec-capture-1/work","path":"/tmp/codexrec-capture-1/home/sessions/2026/11/29/rollout-x.jsonl"}}}`,
			`{"result":{"thread":{"cwd":"<workspace>","path":"<codex-home>/sessions/2026/11/29/rollout-x.jsonl"}}}`},
		{`{"params":{"command":"/bin/bash -lc 'ls /tmp/x /home/ann/.ssh'","diff":"--- a//tmp/codexrec-capture-1/work/a.txt"}}`,
			`{"params":{"command":"/bin/bash -lc 'ls <tmp>/x <home>/.ssh'","diff":"--- a/<workspace>/a.txt"}}`},
		// Neighbouring names are not paths under the map.
		{`{"a":"/tmpfoo /home/anne ./tmp/x /x/tmp"}`, `{"a":"/tmpfoo /home/anne ./tmp/x /x/tmp"}`},
		// Keys are strings too (maps keyed by path), and escapes are kept around the span.
		{`{"changes":{"/tmp/codexrec-capture-1/work/a\"b.txt":{"kind":"add"}},"s":"\u00e9 \/tmp\/y"}`,
			`{"changes":{"<workspace>/a\"b.txt":{"kind":"add"}},"s":"\u00e9 <tmp>\/y"}`},
		{"WARN could not create PATH aliases in /tmp/codexrec-capture-1/home/tmp\n", "WARN could not create PATH aliases in <codex-home>/tmp\n"},
	}
	for _, c := range cases {
		out, reds := z.Frame([]byte(c.in))
		if string(out) != c.want {
			t.Errorf("in:   %s\ngot:  %s\nwant: %s", c.in, out, c.want)
		}
		if len(reds) != 0 {
			t.Errorf("path maps are not redactions: %v", reds)
		}
	}
	if got := z.Strings([]string{"/tmp/codexrec-capture-1/work/codex", "app-server"}); got[0] != "<workspace>/codex" {
		t.Errorf("Strings: %v", got)
	}
	if names := z.MapNames(); strings.Join(names, ",") != "<codex-home>,<home>,<tmp>,<workspace>" {
		t.Errorf("MapNames: %v", names)
	}
	for _, bad := range []sanitize.Map{{From: "/", To: "<root>"}, {From: "/tmp", To: `<"t">`}, {From: "/tmp", To: "/tmp/x"}, {From: "/tmp", To: ""}} {
		if _, err := sanitize.New(sanitize.Options{Maps: []sanitize.Map{bad}}); err == nil {
			t.Errorf("map %+v accepted", bad)
		}
	}
}

func TestDefaultMaps(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "link")
	real := filepath.Join(dir, "real")
	os.Mkdir(real, 0o700)
	os.Symlink(real, link)
	env := map[string]string{"HOME": "/home/ann", "TMPDIR": "/var/tmp"}
	maps := sanitize.DefaultMaps(link, func(k string) string { return env[k] })
	got := map[string]string{}
	for _, m := range maps {
		got[m.From] = m.To
	}
	want := map[string]string{link: "<cwd>", real: "<cwd>", "/home/ann": "<home>", "/home/ann/.codex": "<codex-home>", "/var/tmp": "<tmp>"}
	for from, to := range want {
		if got[from] != to {
			t.Errorf("DefaultMaps: %s -> %q, want %q (all: %v)", from, got[from], to, maps)
		}
	}
	// A capture's own map goes first and wins over a default of the same path.
	maps = sanitize.WithPathMap(maps, "/home/ann/.codex", "<capture-home>")
	if maps[0].From != "/home/ann/.codex" || maps[0].To != "<capture-home>" {
		t.Errorf("WithPathMap: %v", maps)
	}
	for _, m := range maps[1:] {
		if m.From == "/home/ann/.codex" {
			t.Errorf("WithPathMap kept the default of the same path: %v", maps)
		}
	}
}

// TestPlaceholders: deterministic per salt, keyed (a different salt or none gives a
// different placeholder), and never the value or a plain hash of it.
func TestPlaceholders(t *testing.T) {
	key := "sk-proj-" + newGen(4).str(64, b64url)
	line := []byte(`{"params":{"delta":"` + key + `"}}`)
	ph := func(o sanitize.Options) string {
		z, err := sanitize.New(o)
		if err != nil {
			t.Fatal(err)
		}
		_, reds := z.Frame(line)
		if len(reds) != 1 {
			t.Fatalf("redactions: %v", reds)
		}
		return reds[0].Placeholder
	}
	a1, a2 := ph(sanitize.Options{Salt: "a"}), ph(sanitize.Options{Salt: "a"})
	b := ph(sanitize.Options{Salt: "b"})
	n1, n2 := ph(sanitize.Options{}), ph(sanitize.Options{})
	if a1 != a2 {
		t.Errorf("same salt, different placeholders: %s %s", a1, a2)
	}
	if a1 == b || n1 == n2 {
		t.Errorf("placeholders not keyed: salt a %s, salt b %s, unsalted %s %s", a1, b, n1, n2)
	}
	if !strings.HasPrefix(a1, "<redacted:openai-key:") || strings.Contains(sha256Hex(key), a1[len(a1)-7:len(a1)-1]) {
		t.Errorf("placeholder %s", a1)
	}
	z, _ := sanitize.New(sanitize.Options{Salt: "a"})
	_, r1 := z.Frame(line)
	_, r2 := z.Frame([]byte(`{"x":["` + key + `"]}`))
	if r1[0].Placeholder != r2[0].Placeholder {
		t.Errorf("the same secret in two frames got two placeholders")
	}
}

func TestMask(t *testing.T) {
	cases := map[string]string{
		"sk-p" + strings.Repeat("x", 47): "sk-p…(51 chars)",
		"abcdefghijkl":                   "ab…(12 chars)",
		"hunter22":                       "…(8 chars)",
	}
	for in, want := range cases {
		if got := sanitize.Mask([]byte(in)); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestGuardReport: each finding names rule, seq and pointer with a masked preview,
// the message says how to allow a false positive, and --allow does.
func TestGuardReport(t *testing.T) {
	key := "ghp_" + newGen(5).str(36, alnum)
	z, _ := sanitize.New(sanitize.Options{})
	err := writeRecording(t, []string{`{"method":"item/agentMessage/delta","params":{"delta":"token ` + key + `"}}`}, z.Guard)
	var le *sanitize.LeakError
	if !errors.As(err, &le) || len(le.Leaks) != 1 {
		t.Fatalf("err %v", err)
	}
	l := le.Leaks[0]
	if l.Rule != "github-token" || l.Seq != 1 || l.Pointer != "/msg/params/delta" || l.Preview != "ghp_…(40 chars)" {
		t.Errorf("leak %+v", l)
	}
	msg := err.Error()
	if strings.Contains(msg, key) || strings.Contains(msg, "--allow") || !strings.Contains(msg, "github-token  seq 1  /msg/params/delta  ghp_…(40 chars)") {
		t.Errorf("message:\n%s", msg)
	}
	allowed, _ := sanitize.New(sanitize.Options{Allow: []string{`^ghp_` + key[4:10]}})
	line := []byte(`{"params":{"delta":"token ` + key + `"}}`)
	if out, _ := allowed.Frame(line); string(out) != string(line) {
		t.Errorf("an allowed value was redacted: %s", out)
	}
	if err := writeRecording(t, []string{string(line)}, allowed.Guard); err != nil {
		t.Errorf("an allowed value was refused: %v", err)
	}
	if _, err := sanitize.New(sanitize.Options{Allow: []string{"("}}); err == nil {
		t.Error("a bad allow regex was accepted")
	}
}

// TestFalsePositiveShapes: values that look random but are not secrets.
func TestFalsePositiveShapes(t *testing.T) {
	z, _ := sanitize.New(sanitize.Options{})
	lines := []string{
		`{"method":"thread/started","params":{"thread":{"id":"019ad0f2-6a0e-7c71-8a8b-3d1f0c2e9b77","path":"/x/rollout-2026-11-29T10-36-20-019ad0f2-6a0e-7c71-8a8b-3d1f0c2e9b77.jsonl","createdAt":1795948348,"gitInfo":{"sha":"7e6c9ac0f5d3b1e2a4c6d8e0f1a2b3c4d5e6f708","branch":"main"}}}}`,
		`{"method":"thread/tokenUsage/updated","params":{"tokenUsage":{"total":{"totalTokens":12345,"inputTokens":10}},"max_output_tokens=4096":1}}`,
		`{"params":{"delta":"task-0123456789abcdefghijklmnop risk-management-framework-2026 cancellationToken: 019ad0f2-6a0e-7c71-8a8b-3d1f0c2e9b77 sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}}`,
		`{"params":{"delta":"Authorization: required. The bearer of this letter. password: see the docs. token=$GITHUB_TOKEN secret: /run/secrets/db"}}`,
		"2026-11-29T10:36:20.512Z  INFO codex_core::codex: session_id=019ad0f2-6a0e-7c71-8a8b-3d1f0c2e9b77 model=gpt-5.5 tokens=1234",
	}
	for _, l := range lines {
		if out, reds := z.Frame([]byte(l)); len(reds) != 0 || string(out) != l {
			t.Errorf("false positive %v in %s", reds, l)
		}
		if err := writeRecording(t, []string{l}, z.Guard); err != nil {
			t.Errorf("guard false positive: %v", err)
		}
	}
}

// TestGuardScansHeader: the header is scanned too (a key passed on the wrapped
// command line); its findings have no seq and name line 1.
func TestGuardScansHeader(t *testing.T) {
	key := "sk-proj-" + newGen(6).str(60, b64url)
	file := `{"type":"header","format":1,"command":["codex","app-server","-c","api_key=` + key + `"]}` + "\n" +
		`{"type":"trailer","ended":"client-eof","exitCode":0,"duration":0.1,"frames":{}}` + "\n"
	z, _ := sanitize.New(sanitize.Options{})
	leaks, err := z.Scan(strings.NewReader(file))
	if err != nil || len(leaks) != 1 {
		t.Fatalf("leaks %v, err %v", leaks, err)
	}
	if l := leaks[0]; l.Rule != "openai-key" || l.Seq != 0 || l.Line != 1 || l.Pointer != "/command/3" || !strings.HasPrefix(l.String(), "openai-key  line 1  /command/3  sk-p…(68 chars)") {
		t.Errorf("leak %+v (%s)", l, l)
	}
	if got := z.Strings([]string{"-c", "api_key=" + key}); strings.Contains(got[1], key) {
		t.Errorf("Strings kept the key: %v", got)
	}
}

// TestScanLongLine: a secret is found in a line far longer than the read buffer, and
// in the line after it, with their line numbers.
func TestScanLongLine(t *testing.T) {
	z, err := sanitize.New(sanitize.Options{Secrets: []sanitize.Secret{{Name: "K", Value: "s3cr3t-value-0123456789"}}})
	if err != nil {
		t.Fatal(err)
	}
	long := `{"delta":"` + strings.Repeat("x", 9<<20) + ` s3cr3t-value-0123456789"}`
	file := "{}\n" + long + "\n" + `{"a":"s3cr3t-value-0123456789"}` + "\n"
	leaks, err := z.Scan(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, l := range leaks {
		lines = append(lines, l.Line)
	}
	if len(lines) != 2 || lines[0] != 2 || lines[1] != 3 {
		t.Errorf("leaks on lines %v, want [2 3]", lines)
	}
}
