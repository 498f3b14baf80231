package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestViewCommand(t *testing.T) {
	src := filepath.Join(fixtureRoot, "0.171.0", "approval-accept.jsonl")
	if _, err := os.Stat(src); err != nil {
		// committed with the repository: never missing
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "report.html")
	res := runCodexrec(t, "", nil, "view", src, "-o", out)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	fi, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("report mode %v, want 0600 (it holds recorded content)", fi.Mode().Perm())
	}
	page, _ := os.ReadFile(out)
	for _, want := range []string{`<script id="codexrec-data" type="application/json">`, "Content-Security-Policy", `item/commandExecution/requestApproval`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, banned := range []string{"http://", "https://", "src=", "@import", "url("} {
		if i := strings.Index(string(page[:strings.Index(string(page), `<script id="codexrec-data"`)]), banned); i >= 0 {
			t.Errorf("page head refers to something external: %q", banned)
		}
	}

	res = runCodexrec(t, "", nil, "view", src, "-o", out)
	if res.code != 2 || !strings.Contains(string(res.stderr), "exists") {
		t.Errorf("second view without --force: exit %d, stderr %q; want 2 and 'exists'", res.code, res.stderr)
	}
	if res = runCodexrec(t, "", nil, "view", "--force", "-o", out, src); res.code != 0 {
		t.Errorf("view --force: exit %d: %s", res.code, res.stderr)
	}
	res = runCodexrec(t, "", nil, "view", src, "-o", "-")
	if res.code != 0 || string(res.stdout) != string(page) {
		t.Errorf("view -o - wrote a different page (exit %d)", res.code)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"view", src}, "-o FILE is required"},
		{[]string{"view", "-o", out}, "want exactly one recording"},
		{[]string{"view", "no-such.jsonl", "-o", "-"}, "no-such.jsonl"},
	} {
		res := runCodexrec(t, "", nil, tc.args...)
		if res.code != 2 || !strings.Contains(string(res.stderr), tc.want) {
			t.Errorf("codexrec %v: exit %d, stderr %q; want 2 and %q", tc.args, res.code, res.stderr, tc.want)
		}
	}
}

func TestDiffHTMLCommand(t *testing.T) {
	oldRec := filepath.Join(fixtureRoot, "0.163.0", "approval-accept.jsonl")
	newRec := filepath.Join(fixtureRoot, "0.171.0", "approval-accept.jsonl")
	if _, err := os.Stat(newRec); err != nil {
		// committed with the repository: never missing
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "diff.html")
	res := runCodexrec(t, "", nil, "diff", oldRec, newRec, "--html", "-o", out)
	if res.code != 1 {
		t.Fatalf("diff of 0.163.0 and 0.171.0: exit %d, want 1 (they differ): %s", res.code, res.stderr)
	}
	if !strings.Contains(string(res.stdout), "summary: different") {
		t.Errorf("the text report is still printed with --html:\n%s", res.stdout)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `"mode":"diff"`) || !strings.Contains(string(page), `"lanes":[{"dir":"c2s"`) {
		t.Errorf("diff page lacks its aligned data")
	}
	if res := runCodexrec(t, "", nil, "diff", "--html", oldRec, newRec); res.code != 2 || !strings.Contains(string(res.stderr), "-o FILE") {
		t.Errorf("diff --html without -o: exit %d, stderr %q", res.code, res.stderr)
	}
	if res := runCodexrec(t, "", nil, "diff", oldRec, newRec, "--html", "-o", out); res.code != 2 || !strings.Contains(string(res.stderr), "exists") {
		t.Errorf("diff --html over an existing page: exit %d, stderr %q", res.code, res.stderr)
	}
}
