package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/testing/codextest"
)

// editedRecordings writes two edits of the committed plain fixture: one whose
// recorded initialize result says another platformOs than any server sends (so a
// rerun answers differently: changed), one with an extra client request the recording
// shows answered but every real server rejects (breaking). The real binary cannot be
// made to produce either, which is why they are edited by hand.
func editedRecordings(t *testing.T, dir string) (changed, breaking string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "hermetic", codexbin.Oldest, "plain.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"platformOs":"linux"`) {
		t.Fatal("plain.jsonl has no platformOs linux to edit")
	}
	changed = filepath.Join(dir, "changed.jsonl")
	if err := os.WriteFile(changed, []byte(strings.Replace(string(b), `"platformOs":"linux"`, `"platformOs":"plan9"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if strings.HasPrefix(l, `{"type":"exit"`) {
			out = append(out,
				`{"type":"frame","seq":43,"t":0.99,"dir":"c2s","kind":"request","method":"thread/frobnicate","id":99,"msg":{"id":99,"method":"thread/frobnicate","params":{}}}`+"\n",
				`{"type":"frame","seq":44,"t":0.995,"dir":"s2c","kind":"response","method":"thread/frobnicate","id":99,"msg":{"id":99,"result":{}}}`+"\n")
		}
		out = append(out, l)
	}
	breaking = filepath.Join(dir, "breaking.jsonl")
	if err := os.WriteFile(breaking, []byte(strings.Join(out, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	return changed, breaking
}

type upgradeJSON struct {
	Schema struct {
		Breaking int `json:"breaking"`
	} `json:"schema"`
	Recordings []struct {
		Name   string   `json:"name"`
		Status string   `json:"status"`
		Why    []string `json:"why"`
	} `json:"recordings"`
}

// TestUpgradeExitCodes runs the built binary's upgrade on one version (no schema
// change) over a recording that reruns the same (exit 0), one the server answers
// differently (changed, exit 0) and one with a request the server rejects (breaking,
// exit 1).
func TestUpgradeExitCodes(t *testing.T) {
	v := codexbin.Oldest
	codextest.Binary(t, v)
	dir := t.TempDir()
	changed, breaking := editedRecordings(t, dir)
	plain, _ := filepath.Abs(filepath.Join("..", "..", "fixtures", "hermetic", v, "plain.jsonl"))
	for _, tc := range []struct {
		file, status string
		code         int
	}{
		{plain, "same", 0},
		{changed, "changed", 0},
		{breaking, "breaking", 1},
	} {
		t.Run(tc.status, func(t *testing.T) {
			r := runCodexrec(t, "", nil, "upgrade", "--from", v, "--to", v, "--json", tc.file)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d\n%s", r.code, tc.code, r.stderr)
			}
			var rep upgradeJSON
			if err := json.Unmarshal(r.stdout, &rep); err != nil {
				t.Fatalf("%v\n%s", err, r.stdout)
			}
			if rep.Schema.Breaking != 0 || len(rep.Recordings) != 1 || rep.Recordings[0].Status != tc.status {
				t.Fatalf("report %+v, want one %s recording", rep, tc.status)
			}
			if tc.status == "breaking" && (len(rep.Recordings[0].Why) != 1 || !strings.Contains(rep.Recordings[0].Why[0], "thread/frobnicate (#1) is rejected")) {
				t.Errorf("why %q", rep.Recordings[0].Why)
			}
		})
	}
}

// TestUpgradeReport: from the oldest pinned version to the newest, over two committed
// fixtures, the text report has the summary table, the HTML page links each pair's
// diff page, and the schema diff's breaking changes make the exit code 1.
func TestUpgradeReport(t *testing.T) {
	codextest.Binary(t, codexbin.Oldest)
	codextest.Binary(t, codexbin.Newest)
	dir := t.TempDir()
	var files []string
	for _, n := range []string{"plain", "approval-accept"} {
		f, _ := filepath.Abs(filepath.Join("..", "..", "fixtures", "hermetic", codexbin.Oldest, n+".jsonl"))
		files = append(files, f)
	}
	page := filepath.Join(dir, "upgrade.html")
	r := runCodexrec(t, "", nil, append([]string{"upgrade", "--from", codexbin.Oldest, "--to", codexbin.Newest, "-o", page}, files...)...)
	if r.code != 1 {
		t.Errorf("exit %d, want 1 (the schema diff has breaking changes)\n%s", r.code, r.stderr)
	}
	out := string(r.stdout)
	for _, want := range []string{"codex " + codexbin.Oldest + " -> " + codexbin.Newest, "recording ", "plain ", "approval-accept ", "/result/thread/attachedToThreadId"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, link := range []string{"upgrade.html.diffs/01-plain.html", "upgrade.html.diffs/02-approval-accept.html"} {
		if !strings.Contains(string(html), `href="`+link+`"`) {
			t.Errorf("page does not link %s", link)
		}
		b, err := os.ReadFile(filepath.Join(dir, link))
		if err != nil || !strings.Contains(string(b), "<!DOCTYPE html>") {
			t.Errorf("diff page %s: %v", link, err)
		}
	}
	if strings.Contains(string(html), "<script") || !strings.Contains(string(html), "Schema changes") {
		t.Errorf("the report page should be static and carry the schema changes")
	}
}

// upgrade --codex-from/--codex-to run the given binaries, with the versions their
// --version names, from a directory and HOME where no cache holds any codex.
func TestUpgradeCodexPaths(t *testing.T) {
	v := codexbin.Oldest
	bin := codextest.Binary(t, v)
	tmp := t.TempDir()
	plain, _ := filepath.Abs(filepath.Join("..", "..", "fixtures", "hermetic", v, "plain.jsonl"))
	r := runCodexIn(t, tmp, tmp, "http://127.0.0.1:1", "upgrade", "--codex-from", bin, "--codex-to", bin, "--rerun-both", "--json", plain)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var rep struct {
		From, To   string
		Recordings []struct{ Status string }
	}
	if err := json.Unmarshal(r.stdout, &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if rep.From != v || rep.To != v || len(rep.Recordings) != 1 || rep.Recordings[0].Status != "same" {
		t.Errorf("report %s", r.stdout)
	}
	// Without the paths, the versions are looked up in the (empty) cache.
	r = runCodexIn(t, tmp, tmp, "http://127.0.0.1:1", "upgrade", "--from", v, "--to", v, "--rerun-both", "--json", plain)
	if r.code != 2 || !strings.Contains(string(r.stderr), "codexrec codex install "+v) {
		t.Errorf("an upgrade without installed binaries does not say how to install them: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestUpgradeRefusals: the built binary refuses upgrade's settings that cannot
// run (upgrade.Options.Validate) by their flags, exit 2, before running anything.
func TestUpgradeRefusals(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--to", "0.171.0", "--scenarios"}, "--from and --to are required (or --codex-from and --codex-to)"},
		{[]string{"--from", "0.171.0", "--scenarios"}, "--from and --to are required"},
		{[]string{"--from", "0.171.0", "--to", "0.171.0"}, "want recordings, or --scenarios (not both)"},
		{[]string{"--from", "0.171.0", "--to", "0.171.0", "--scenarios", "x.jsonl"}, "want recordings, or --scenarios (not both)"},
	} {
		r := runCodexrec(t, "", nil, append([]string{"upgrade"}, tc.args...)...)
		if r.code != 2 || !strings.Contains(string(r.stderr), "codexrec upgrade: "+tc.want) || len(r.stdout) > 0 {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}
