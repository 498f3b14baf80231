package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/testing/codextest"
)

// diffReport is the part of `codexrec diff --json` the tests read.
type diffReport struct {
	Same   bool `json:"same"`
	Groups []struct {
		Dir, Kind, Method string
		Changes           []struct {
			Change, Pointer string
			Count           int
		}
	} `json:"groups"`
	MethodsAdded, MethodsRemoved []struct{ Dir, Kind, Method string }
}

func (r diffReport) lines() []string {
	var out []string
	for _, g := range r.Groups {
		for _, c := range g.Changes {
			out = append(out, fmt.Sprintf("%s %s %s: %s %s", g.Dir, g.Kind, g.Method, c.Change, c.Pointer))
		}
	}
	for _, m := range r.MethodsAdded {
		out = append(out, "only in new: "+m.Dir+" "+m.Kind+" "+m.Method)
	}
	for _, m := range r.MethodsRemoved {
		out = append(out, "only in old: "+m.Dir+" "+m.Kind+" "+m.Method)
	}
	sort.Strings(out)
	return out
}

func parseDiff(t *testing.T, res result) diffReport {
	t.Helper()
	var r diffReport
	if err := json.Unmarshal(res.stdout, &r); err != nil {
		t.Fatalf("--json output: %v\n%s", err, res.stdout)
	}
	return r
}

// plainAdded is what 0.171.0 adds to the plain scenario's wire over 0.163.0, read
// from the committed captures of both; anything more would be spurious.
var plainAdded = []string{
	"s2c notification item/completed: added /params/contentTokenCount",
	"s2c notification item/completed: added /params/item/completedAtMs",
	"s2c notification item/completed: added /params/item/moderation",
	"s2c notification item/completed: added /params/item/startedAtMs",
	"s2c notification item/started: added /params/item/completedAtMs",
	"s2c notification item/started: added /params/item/moderation",
	"s2c notification item/started: added /params/item/startedAtMs",
	"s2c notification thread/started: added /params/thread/attachedToThreadId",
	"s2c notification turn/completed: added /params/turn/items/*/completedAtMs",
	"s2c notification turn/completed: added /params/turn/items/*/moderation",
	"s2c notification turn/completed: added /params/turn/items/*/startedAtMs",
	"s2c response thread/start: added /result/thread/attachedToThreadId",
}

// TestDiffCommand runs codexrec diff on the committed captures: exit codes, JSON,
// --ignore, flags after the files, colour and errors.
func TestDiffCommand(t *testing.T) {
	oldPlain := replayFixture(codexbin.Oldest, "plain")
	newPlain := replayFixture(codexbin.Newest, "plain")

	t.Run("a recording against itself", func(t *testing.T) {
		res := runCodexrec(t, "", nil, "diff", oldPlain, oldPlain)
		if res.code != 0 || !bytes.Contains(res.stdout, []byte("the same after normalisation")) {
			t.Fatalf("exit %d\n%s%s", res.code, res.stdout, res.stderr)
		}
	})
	t.Run("plain across versions: exactly the added fields", func(t *testing.T) {
		res := runCodexrec(t, "", nil, "diff", "--json", oldPlain, newPlain)
		if res.code != 1 {
			t.Fatalf("exit %d, want 1\n%s", res.code, res.stderr)
		}
		r := parseDiff(t, res)
		if got := r.lines(); strings.Join(got, "\n") != strings.Join(plainAdded, "\n") {
			t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(plainAdded, "\n"))
		}
	})
	t.Run("--ignore with wildcards, after the files", func(t *testing.T) {
		res := runCodexrec(t, "", nil, "diff", oldPlain, newPlain,
			"--ignore", "/**/startedAtMs", "--ignore", "/**/completedAtMs", "--ignore=/**/moderation",
			"--ignore", "/*/thread/attachedToThreadId", "--ignore", "/params/contentTokenCount")
		if res.code != 0 {
			t.Fatalf("exit %d, want 0 with the new fields ignored\n%s%s", res.code, res.stdout, res.stderr)
		}
	})
	t.Run("--ignore-moves", func(t *testing.T) {
		dir := filepath.Join("..", "..", "diff", "testdata", "pairs", "moved")
		old, nw := filepath.Join(dir, "old.jsonl"), filepath.Join(dir, "new.jsonl")
		if res := runCodexrec(t, "", nil, "diff", old, nw); res.code != 1 || !bytes.Contains(res.stdout, []byte("1 moved")) {
			t.Errorf("a moved notification: exit %d, want 1\n%s", res.code, res.stdout)
		}
		if res := runCodexrec(t, "", nil, "diff", "--ignore-moves", old, nw); res.code != 0 {
			t.Errorf("--ignore-moves: exit %d, want 0\n%s", res.code, res.stdout)
		}
		if res := runCodexrec(t, "", nil, "diff", "--ignore-moves", oldPlain, newPlain); res.code != 1 {
			t.Errorf("--ignore-moves with real changes: exit %d, want 1", res.code)
		}
	})
	t.Run("text report", func(t *testing.T) {
		res := runCodexrec(t, "", nil, "diff", oldPlain, newPlain)
		for _, want := range []string{"summary: different", "s2c notification item/started", "+ /params/item/startedAtMs added \"<time>\""} {
			if !bytes.Contains(res.stdout, []byte(want)) {
				t.Errorf("report lacks %q:\n%s", want, res.stdout)
			}
		}
		if bytes.Contains(res.stdout, []byte("\x1b[")) {
			t.Error("colour escapes in output to a pipe")
		}
		if col := runCodexrec(t, "", nil, "diff", "--color", "always", oldPlain, newPlain); !bytes.Contains(col.stdout, []byte("\x1b[32m+\x1b[0m")) {
			t.Errorf("--color always: no green +:\n%q", col.stdout)
		}
	})
	t.Run("errors", func(t *testing.T) {
		notRec := filepath.Join(t.TempDir(), "x.jsonl")
		os.WriteFile(notRec, []byte(`{"id":1}`+"\n"), 0o600)
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"diff", oldPlain}, "want two recordings"},
			{[]string{"diff", oldPlain, "missing.jsonl"}, "missing.jsonl"},
			{[]string{"diff", oldPlain, notRec}, "not a recording: first line is not a header"},
			{[]string{"diff", "--ignore", "params/x", oldPlain, newPlain}, "starts with '/'"},
			{[]string{"diff", "--color", "pink", oldPlain, newPlain}, "--color"},
		} {
			res := runCodexrec(t, "", nil, tc.args...)
			if res.code != 2 || !bytes.Contains(res.stderr, []byte(tc.want)) {
				t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args[1:], res.code, res.stderr, tc.want)
			}
		}
	})
}

// TestDiffFreshCapture captures the plain scenario afresh with the real binaries and
// diffs it against the committed fixture and against a second fresh capture: the
// normalisation must leave nothing that varies from run to run. The server orders
// its asynchronous notifications (a warning, an MCP status) differently from run to
// run, so a message found at another place counts as the same (--ignore-moves, as
// the other tests of fresh captures do); anything changed, added or removed fails.
func TestDiffFreshCapture(t *testing.T) {
	dir := t.TempDir()
	capture := func(t *testing.T, version, name string) string {
		codextest.Binary(t, version)
		out := filepath.Join(dir, name)
		res := runCodexrec(t, "", nil, "capture", "--scenario", "plain", "--codex-version", version, "-o", out)
		if res.code != 0 {
			t.Fatalf("capture plain with %s: exit %d\n%s", version, res.code, res.stderr)
		}
		return out
	}
	for _, version := range codexbin.Versions {
		t.Run(version, func(t *testing.T) {
			a := capture(t, version, version+"-a.jsonl")
			res := runCodexrec(t, "", nil, "diff", "--ignore-moves", replayFixture(version, "plain"), a)
			if res.code != 0 {
				t.Errorf("committed fixture vs fresh capture: exit %d\n%s%s", res.code, res.stdout, res.stderr)
			}
			if version != codexbin.Newest {
				return
			}
			b := capture(t, version, version+"-b.jsonl")
			if res := runCodexrec(t, "", nil, "diff", "--ignore-moves", a, b); res.code != 0 {
				t.Errorf("two fresh captures: exit %d\n%s%s", res.code, res.stdout, res.stderr)
			}
		})
	}
}

// writeTinySchema writes a minimal generate-json-schema folder whose one client
// request takes params with field a of the given schema.
func writeTinySchema(t *testing.T, dir, field string) {
	t.Helper()
	files := map[string]string{
		"ClientRequest.json": `{"oneOf":[{"type":"object","required":["id","method","params"],"properties":{"id":{"type":"integer"},` +
			`"method":{"type":"string","enum":["thing/do"]},"params":{"$ref":"#/definitions/DoParams"}}}],` +
			`"definitions":{"DoParams":{"type":"object","properties":{"a":` + field + `}}}}`,
		"ClientNotification.json": `{"oneOf":[{"type":"object","properties":{"method":{"type":"string","enum":["initialized"]}}}]}`,
		"ServerRequest.json":      `{"oneOf":[]}`,
		"ServerNotification.json": `{"oneOf":[]}`,
		"DoResponse.json":         `{"type":"object"}`,
	}
	os.MkdirAll(dir, 0o755)
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSchemaDiffCommand runs codexrec schema diff on the embedded versions, on a
// folder the real binary generates, and on hand-made folders for --fail-on.
func TestSchemaDiffCommand(t *testing.T) {
	t.Run("pinned versions", func(t *testing.T) {
		res := runCodexrec(t, "", nil, "schema", "diff", codexbin.Oldest, codexbin.Newest)
		if res.code != 1 {
			t.Fatalf("exit %d, want 1\n%s", res.code, res.stderr)
		}
		for _, m := range []string{"modelProvider/list", "modelProvider/config/write", "modelProvider/default/set",
			"account/securitySetup/read", "feedback/save", "thread/section/changed", "thread/search/partial"} {
			if !bytes.Contains(res.stdout, []byte(m+"\n  info     ")) {
				t.Errorf("report does not list %s as added", m)
			}
		}
		js := runCodexrec(t, "", nil, "schema", "diff", codexbin.Oldest, codexbin.Newest, "--json", "--fail-on", "never")
		var r struct {
			MethodsAdded []string
			TypesChanged []string
			Breaking     int
		}
		if js.code != 0 || json.Unmarshal(js.stdout, &r) != nil {
			t.Fatalf("--json --fail-on never: exit %d\n%s", js.code, js.stderr)
		}
		if len(r.MethodsAdded) != 7 || len(r.TypesChanged) == 0 || r.Breaking == 0 {
			t.Errorf("JSON report: %d methods added, %d types changed, %d breaking", len(r.MethodsAdded), len(r.TypesChanged), r.Breaking)
		}
	})
	t.Run("generated folder", func(t *testing.T) {
		bin := codextest.Binary(t, codexbin.Oldest)
		dir := t.TempDir()
		env, _ := codextest.Env(t)
		gen := exec.Command(bin, "app-server", "generate-json-schema", "--out", dir)
		gen.Env = env
		if out, err := gen.CombinedOutput(); err != nil {
			t.Fatalf("generate-json-schema: %v\n%s", err, out)
		}
		if res := runCodexrec(t, "", nil, "schema", "diff", dir, codexbin.Oldest); res.code != 0 {
			t.Errorf("folder vs embedded %s: exit %d\n%s%s", codexbin.Oldest, res.code, res.stdout, res.stderr)
		}
	})
	t.Run("--fail-on", func(t *testing.T) {
		dir := t.TempDir()
		old, warn, brk := filepath.Join(dir, "old"), filepath.Join(dir, "warn"), filepath.Join(dir, "break")
		writeTinySchema(t, old, `{"type":"integer","format":"int32"}`)
		writeTinySchema(t, warn, `{"type":"integer","format":"int64"}`) // request-constraint-changed: warning
		writeTinySchema(t, brk, `{"type":"string"}`)                    // request-type-changed: breaking
		for _, tc := range []struct {
			new, failOn string
			want        int
		}{
			{warn, "info", 1}, {warn, "warning", 1}, {warn, "breaking", 0}, {warn, "never", 0},
			{brk, "breaking", 1}, {old, "info", 0},
		} {
			res := runCodexrec(t, "", nil, "schema", "diff", "--fail-on", tc.failOn, old, tc.new)
			if res.code != tc.want {
				t.Errorf("%s --fail-on %s: exit %d, want %d\n%s%s", filepath.Base(tc.new), tc.failOn, res.code, tc.want, res.stdout, res.stderr)
			}
		}
	})
	t.Run("errors", func(t *testing.T) {
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"schema"}, "want a subcommand"},
			{[]string{"schema", "merge"}, "unknown subcommand"},
			{[]string{"schema", "diff", codexbin.Oldest}, "want two"},
			{[]string{"schema", "diff", "9.9.9", codexbin.Oldest}, "9.9.9"},
			{[]string{"schema", "diff", "./no/such/dir", codexbin.Oldest}, "not a folder"},
			{[]string{"schema", "diff", "--fail-on", "severe", codexbin.Oldest, codexbin.Newest}, "--fail-on"},
		} {
			res := runCodexrec(t, "", nil, tc.args...)
			if res.code != 2 || !bytes.Contains(res.stderr, []byte(tc.want)) {
				t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, res.code, res.stderr, tc.want)
			}
		}
		if res := runCodexrec(t, "", nil, "schema", "diff", "--list-rules"); res.code != 0 || !bytes.Contains(res.stdout, []byte("breaking response-enum-value-added")) {
			t.Errorf("--list-rules: exit %d\n%s", res.code, res.stdout)
		}
	})
}
