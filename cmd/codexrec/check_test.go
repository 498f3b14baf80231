package main_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var checkFixture = flag.String("check-fixture", filepath.Join("..", "..", "fixtures", "hermetic", "0.171.0", "approval-accept.jsonl"),
	"a committed hermetic recording of an accepted approval, checked end to end")

// fixtureLines returns the committed recording's lines, to be altered as text.
func fixtureLines(t *testing.T) [][]byte {
	t.Helper()
	b, err := os.ReadFile(*checkFixture)
	if err != nil {
		t.Fatalf("%v (the hermetic fixtures are committed; make fixtures regenerates them)", err)
	}
	return bytes.SplitAfter(b, []byte("\n"))
}

func writeLines(t *testing.T, name string, lines [][]byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, bytes.Join(lines, nil), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// withoutTurnCompleted is the fixture with its turn/completed frame dropped (a fault
// the real server does not produce): turn-incomplete must catch it. The trailer's
// count is lowered to match, so the file's structure stays sound.
func withoutTurnCompleted(t *testing.T) (path string, seq int64) {
	var out [][]byte
	for _, l := range fixtureLines(t) {
		if bytes.Contains(l, []byte(`"type":"frame"`)) && bytes.Contains(l, []byte(`"method":"turn/completed"`)) {
			var f struct{ Seq int64 }
			json.Unmarshal(l, &f)
			seq = f.Seq
			continue
		}
		if bytes.HasPrefix(l, []byte(`{"type":"trailer"`)) {
			var tr map[string]any
			if err := json.Unmarshal(l, &tr); err != nil {
				t.Fatal(err)
			}
			tr["frames"].(map[string]any)["s2c"] = tr["frames"].(map[string]any)["s2c"].(float64) - 1
			l, _ = json.Marshal(tr)
			l = append(l, '\n')
		}
		out = append(out, l)
	}
	if seq == 0 {
		t.Fatal("fixture has no turn/completed")
	}
	return writeLines(t, "no-turn-completed.jsonl", out), seq
}

// withANSI is the fixture with an ANSI colour escape in its first agent message
// delta: a warning-level finding only.
func withANSI(t *testing.T) string {
	lines := fixtureLines(t)
	for i, l := range lines {
		if bytes.Contains(l, []byte(`"method":"item/agentMessage/delta"`)) {
			lines[i] = bytes.Replace(l, []byte(`"delta":"`), []byte(`"delta":"\u001b[31m`), 1)
			return writeLines(t, "ansi.jsonl", lines)
		}
	}
	t.Fatal("fixture has no agent message delta")
	return ""
}

func TestCheckCleanFixture(t *testing.T) {
	r := runCodexrec(t, "", nil, "check", *checkFixture)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !bytes.Contains(r.stdout, []byte("0 errors, 0 warnings")) {
		t.Errorf("report does not say it is clean:\n%s", r.stdout)
	}
}

func TestCheckFindingsJSONAndJUnit(t *testing.T) {
	path, seq := withoutTurnCompleted(t)
	junit := filepath.Join(t.TempDir(), "check.xml")
	r := runCodexrec(t, "", nil, "check", "--json", "--junit", junit, path)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	var rep struct {
		FailOn     string
		Failed     bool
		Recordings []struct {
			File     string
			Findings []struct {
				Rule, Severity, Thread, Turn string
				Seqs                         []int64
			}
		}
	}
	if err := json.Unmarshal(r.stdout, &rep); err != nil {
		t.Fatalf("--json output: %v\n%s", err, r.stdout)
	}
	if !rep.Failed || rep.FailOn != "error" || len(rep.Recordings) != 1 {
		t.Fatalf("report header: %+v", rep)
	}
	var found bool
	for _, f := range rep.Recordings[0].Findings {
		if f.Rule == "turn-incomplete" {
			found = true
			if f.Severity != "error" || f.Thread == "" || f.Turn == "" || len(f.Seqs) != 2 || f.Seqs[1] >= seq {
				t.Errorf("turn-incomplete finding: %+v (turn/completed was frame %d)", f, seq)
			}
		}
	}
	if !found {
		t.Errorf("no turn-incomplete finding in %s", r.stdout)
	}

	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &suites); err != nil {
		t.Fatalf("--junit: %v\n%s", err, b)
	}
	if suites.Failures != 1 || len(suites.Suites) != 1 || suites.Suites[0].Name != path {
		t.Fatalf("junit: %d failures, suites %+v", suites.Failures, suites.Suites)
	}
	for _, c := range suites.Suites[0].Cases {
		if (c.Failure != nil) != (c.Name == "turn-incomplete") {
			t.Errorf("junit case %s: failure %+v", c.Name, c.Failure)
		}
	}

	text := runCodexrec(t, "", nil, "check", path)
	if text.code != 1 || !bytes.Contains(text.stdout, []byte("error   turn-incomplete (1)")) {
		t.Errorf("text report (exit %d):\n%s", text.code, text.stdout)
	}
	if r := runCodexrec(t, "", nil, "check", "--disable", "turn-incomplete", path); r.code != 0 {
		t.Errorf("--disable turn-incomplete: exit %d\n%s", r.code, r.stdout)
	}
}

func TestCheckFailOn(t *testing.T) {
	path := withANSI(t)
	if r := runCodexrec(t, "", nil, "check", path); r.code != 0 || !bytes.Contains(r.stdout, []byte("ansi-escape (1)")) {
		t.Errorf("default --fail-on error: exit %d\n%s", r.code, r.stdout)
	}
	if r := runCodexrec(t, "", nil, "check", "--fail-on", "warning", path); r.code != 1 {
		t.Errorf("--fail-on warning: exit %d, want 1\n%s", r.code, r.stdout)
	}
	if r := runCodexrec(t, "", nil, "check", "--severity", "ansi-escape=error", path); r.code != 1 || !bytes.Contains(r.stdout, []byte("error   ansi-escape (1)")) {
		t.Errorf("--severity ansi-escape=error: exit %d, want 1\n%s", r.code, r.stdout)
	}
	if r := runCodexrec(t, "", nil, "check", "--severity", "stderr-error=error,ansi-escape=info", "--fail-on", "warning", path); r.code != 1 || !bytes.Contains(r.stdout, []byte("error   stderr-error")) {
		t.Errorf("--severity stderr-error=error: exit %d, want 1\n%s", r.code, r.stdout)
	}
}

func TestCheckUsageAndUnreadable(t *testing.T) {
	notRec := writeLines(t, "not.jsonl", [][]byte{[]byte(`{"id":1,"method":"initialize"}` + "\n")})
	for _, tc := range []struct {
		name string
		args []string
		err  string
	}{
		{"missing file", []string{"check", filepath.Join(t.TempDir(), "none.jsonl")}, "no such file"},
		{"not a recording", []string{"check", notRec}, "not a recording: first line is not a header"},
		{"no file", []string{"check"}, "no recording"},
		{"bad --fail-on", []string{"check", "--fail-on", "fatal", *checkFixture}, "--fail-on"},
		{"unknown rule", []string{"check", "--disable", "no-such-rule", *checkFixture}, `no rule "no-such-rule"`},
		{"malformed --codex-version", []string{"check", "--codex-version", "banana", *checkFixture}, "not a codex version"},
		{"missing --schema-dir", []string{"check", "--schema-dir", filepath.Join(t.TempDir(), "none"), *checkFixture}, "schema"},
		{"bad --severity", []string{"check", "--severity", "late-event", *checkFixture}, "want RULE=LEVEL"},
		{"bad --severity level", []string{"check", "--severity", "late-event=fatal", *checkFixture}, "unknown severity"},
		{"one good one bad", []string{"check", *checkFixture, notRec}, "not a recording: first line is not a header"},
		{"empty directory", []string{"check", t.TempDir()}, "is a directory with no .jsonl recording"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCodexrec(t, "", nil, tc.args...)
			if r.code != 2 || !strings.Contains(string(r.stderr), tc.err) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", r.code, r.stderr, tc.err)
			}
		})
	}
	r := runCodexrec(t, "", nil, "check", "--list-rules")
	if r.code != 0 || !bytes.Contains(r.stdout, []byte("early-completion           warning")) {
		t.Errorf("--list-rules: exit %d\n%s", r.code, r.stdout)
	}
}

// TestCheckSchema: a real 0.171.0 session against the 0.163.0 schema carries the
// fields 0.171.0 added; check reports them as warnings from validation.
func TestCheckSchema(t *testing.T) {
	r := runCodexrec(t, "", nil, "check", "--codex-version", "0.163.0", *checkFixture)
	if r.code != 0 || !bytes.Contains(r.stdout, []byte("warning schema/undeclared-field")) {
		t.Errorf("exit %d, want 0 and schema/undeclared-field warnings\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCodexrec(t, "", nil, "check", "--codex-version", "0.163.0", "--fail-on", "warning", *checkFixture); r.code != 1 {
		t.Errorf("--fail-on warning: exit %d, want 1", r.code)
	}
	if r := runCodexrec(t, "", nil, "check", "--codex-version", "0.163.0", "--disable", "schema", "--fail-on", "warning", *checkFixture); r.code != 0 {
		t.Errorf("--disable schema: exit %d, want 0\n%s", r.code, r.stdout)
	}
}

// TestCheckDirAndStdin: a directory is checked recording by recording, sorted; "-"
// reads the recording from standard input.
func TestCheckDirAndStdin(t *testing.T) {
	dir := t.TempDir()
	bad, _ := withoutTurnCompleted(t)
	b, err := os.ReadFile(bad)
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(*checkFixture)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "b-bad.jsonl"), b, 0o600)
	os.WriteFile(filepath.Join(dir, "a-good.jsonl"), good, 0o600)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a recording"), 0o600)
	r := runCodexrec(t, "", nil, "check", "--disable", "schema", dir)
	out := string(r.stdout)
	i, j := strings.Index(out, "a-good.jsonl ("), strings.Index(out, "b-bad.jsonl (")
	if r.code != 1 || i < 0 || j < i || !strings.Contains(out, "2 recordings") {
		t.Errorf("check DIR: exit %d\n%s%s", r.code, out, r.stderr)
	}
	r = runCodexrec(t, "", bytes.NewReader(good), "check", "--disable", "schema", "-")
	if r.code != 0 || !strings.HasPrefix(string(r.stdout), "- (codex ") {
		t.Errorf("check -: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
