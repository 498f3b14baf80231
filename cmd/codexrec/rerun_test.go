package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/testing/codextest"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// committed lists the committed fixtures of version v.
func committed(t *testing.T, v string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "fixtures", "hermetic", v, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no committed fixtures of %s: %v", v, err)
	}
	abs := make([]string, len(files))
	for i, f := range files {
		abs[i], _ = filepath.Abs(f)
	}
	return abs
}

// turnEnds lists the statuses of a recording's turn/completed notifications.
func turnEnds(t *testing.T, path string) []string {
	t.Helper()
	rec, err := recorder.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range rec.Frames(wire.ServerToClient) {
		if e.Msg.Method == "turn/completed" {
			out = append(out, gjson.GetBytes(wire.Content(e.Line), "params.turn.status").Str)
		}
	}
	return out
}

// TestRerunSameVersionIsEqual: a committed fixture rerun on the version it was
// recorded with is the same recording after diff's normalisation (the round trip).
// Messages the server sends asynchronously may land at another place in the sequence
// (an MCP server's startup against a response), as they do between two captures, so
// moves alone do not count (--ignore-moves).
func TestRerunSameVersionIsEqual(t *testing.T) {
	v := codexbin.Oldest
	codextest.Binary(t, v)
	dir := t.TempDir()
	for _, f := range committed(t, v) {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(dir, name)
			r := runCodexrec(t, "", nil, "rerun", "--codex-version", v, "-o", out, f)
			if r.code != 0 {
				t.Fatalf("rerun: exit %d: %s", r.code, r.stderr)
			}
			// Besides the schema summary and the closing line, any line is a part left
			// out or a place where the replay went its own way.
			for _, l := range strings.Split(strings.TrimSpace(string(r.stderr)), "\n") {
				if !strings.HasPrefix(l, "codexrec rerun: schema ") && !strings.Contains(l, " with codex "+v+": ") {
					t.Errorf("rerun left something out or went its own way:\n%s", r.stderr)
					break
				}
			}
			d := runCodexrec(t, "", nil, "diff", "--ignore-moves", f, out)
			if d.code != 0 {
				t.Errorf("diff of original and rerun: exit %d\n%s", d.code, d.stdout)
			}
		})
	}
}

// TestRerunAcrossVersions: every committed fixture of the oldest pinned version rerun
// on the newest, and back, completes every turn the original completed.
func TestRerunAcrossVersions(t *testing.T) {
	dir := t.TempDir()
	for _, pair := range [][2]string{{codexbin.Oldest, codexbin.Newest}, {codexbin.Newest, codexbin.Oldest}} {
		from, to := pair[0], pair[1]
		codextest.Binary(t, from)
		codextest.Binary(t, to)
		for _, f := range committed(t, from) {
			name := filepath.Base(f)
			t.Run(from+"-to-"+to+"/"+name, func(t *testing.T) {
				out := filepath.Join(dir, from+"-"+to+"-"+name)
				r := runCodexrec(t, "", nil, "rerun", "--codex-version", to, "-o", out, f)
				if r.code != 0 {
					t.Fatalf("rerun: exit %d: %s", r.code, r.stderr)
				}
				rec, err := recorder.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				if rec.Header.CodexVersion != to {
					t.Errorf("rerun ran codex %q, want %s", rec.Header.CodexVersion, to)
				}
				orig, again := turnEnds(t, f), turnEnds(t, out)
				if len(orig) == 0 || fmt.Sprint(orig) != fmt.Sprint(again) {
					t.Errorf("turns ended %v in the original, %v in the rerun", orig, again)
				}
			})
		}
	}
}

// foreignClient is a session as another client drives it: its own clientInfo, string
// request ids, no initialized notification, an extra request (thread/read). Its
// second turn's first model response (an update_plan call) shows nothing on the wire,
// so the rerun lists it as not reconstructed and plays a stand-in.
const foreignClient = `{
  "name": "foreign-client",
  "responses": [
    {"output": [{"type": "reasoning", "text": "Thinking about tea."}, {"type": "message", "text": "Green tea, please."}]},
    {"output": [{"type": "function_call", "name": "update_plan", "arguments": {"plan": [{"step": "boil water", "status": "in_progress"}, {"step": "steep", "status": "pending"}]}}]},
    {"output": [{"type": "message", "text": "Planned."}]}
  ],
  "client": [
    {"send": {"id": "init-a", "method": "initialize", "params": {"clientInfo": {"name": "other-editor", "title": "Other Editor", "version": "9.1"}}}},
    {"after": "response:\"init-a\"#1", "send": {"id": "t-1", "method": "thread/start", "params": {"cwd": "<cwd>", "approvalPolicy": "never", "sandbox": "read-only"}}},
    {"after": "response:\"t-1\"#1", "send": {"id": "u-1", "method": "turn/start", "params": {"threadId": "<thread-1>", "input": [{"type": "text", "text": "Which tea?", "text_elements": []}]}}, "status": "completed"},
    {"after": "turn/completed#1", "send": {"id": "u-2", "method": "turn/start", "params": {"threadId": "<thread-1>", "input": [{"type": "text", "text": "Plan it.", "text_elements": []}]}}, "status": "completed"},
    {"after": "turn/completed#2", "send": {"id": "l-1", "method": "thread/read", "params": {"threadId": "<thread-1>"}}}
  ],
  "bind": [{"name": "<thread-1>", "in": "response:\"t-1\"#1", "pointer": "/result/thread/id"}]
}`

// TestRerunForeignClient: a recording made by a client other than the scripted one
// (made here by replaying that client's messages against the real binary) reruns on
// the other pinned version with its own ids and identity, every turn completed, and on
// its own version equal to itself.
func TestRerunForeignClient(t *testing.T) {
	codextest.Binary(t, codexbin.Oldest)
	codextest.Binary(t, codexbin.Newest)
	dir := t.TempDir()
	sc := filepath.Join(dir, "foreign.json")
	if err := os.WriteFile(sc, []byte(foreignClient), 0o600); err != nil {
		t.Fatal(err)
	}
	orig := filepath.Join(dir, "foreign.jsonl")
	if r := runCodexrec(t, "", nil, "capture", "--scenario", sc, "--codex-version", codexbin.Oldest, "-o", orig); r.code != 0 {
		t.Fatalf("capture: exit %d: %s", r.code, r.stderr)
	}
	if got := turnEnds(t, orig); fmt.Sprint(got) != "[completed completed]" {
		t.Fatalf("the foreign session's turns ended %v", got)
	}
	for _, v := range []string{codexbin.Newest, codexbin.Oldest} {
		out := filepath.Join(dir, "rerun-"+v+".jsonl")
		r := runCodexrec(t, "", nil, "rerun", "--codex-version", v, "-o", out, orig)
		if r.code != 0 {
			t.Fatalf("rerun on %s: exit %d: %s", v, r.code, r.stderr)
		}
		if got := turnEnds(t, out); fmt.Sprint(got) != "[completed completed]" {
			t.Errorf("rerun on %s: turns ended %v", v, got)
		}
		rec, err := recorder.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var ids, methods []string
		for _, e := range rec.Frames(wire.ClientToServer) {
			ids = append(ids, gjson.GetBytes(wire.Content(e.Line), "id").Raw)
			methods = append(methods, e.Msg.Method)
			if e.Msg.Method == "initialize" && gjson.GetBytes(wire.Content(e.Line), "params.clientInfo.name").Str != "other-editor" {
				t.Errorf("rerun on %s: initialize %s", v, e.Line)
			}
		}
		if want := `["init-a" "t-1" "u-1" "u-2" "l-1"]`; fmt.Sprintf("%q", ids) != fmt.Sprintf("%q", []string{`"init-a"`, `"t-1"`, `"u-1"`, `"u-2"`, `"l-1"`}) {
			t.Errorf("rerun on %s: client ids %v, want %s", v, ids, want)
		}
		// The second turn/start names the thread this server created, not the recorded one.
		var threadID string
		for _, e := range rec.Frames(wire.ServerToClient) {
			if e.Msg.Method == "thread/start" {
				threadID = gjson.GetBytes(wire.Content(e.Line), "result.thread.id").Str
			}
		}
		for _, e := range rec.Frames(wire.ClientToServer) {
			if e.Msg.Method == "turn/start" && gjson.GetBytes(wire.Content(e.Line), "params.threadId").Str != threadID {
				t.Errorf("rerun on %s: turn/start for thread %s, the server made %s", v, gjson.GetBytes(wire.Content(e.Line), "params.threadId").Str, threadID)
			}
		}
		if !strings.Contains(string(r.stderr), "codexrec rerun: not reconstructed: model response 2 shows nothing") {
			t.Errorf("rerun on %s does not list what it left out:\n%s", v, r.stderr)
		}
		if !strings.Contains(fmt.Sprint(methods), "thread/read") || strings.Contains(fmt.Sprint(methods), "initialized") {
			t.Errorf("rerun on %s: client methods %v", v, methods)
		}
		if v == codexbin.Oldest {
			if d := runCodexrec(t, "", nil, "diff", "--ignore-moves", orig, out); d.code != 0 {
				t.Errorf("rerun on the same version differs: exit %d\n%s", d.code, d.stdout)
			}
		}
	}
}

// TestScenarioFromRecording: the scenario written by scenario from-recording is one
// capture --scenario runs, to the same session; stdout holds it without -o, and an
// existing -o file is refused without --force.
func TestScenarioFromRecording(t *testing.T) {
	v := codexbin.Newest
	codextest.Binary(t, v)
	dir := t.TempDir()
	fixture, _ := filepath.Abs(filepath.Join("..", "..", "fixtures", "hermetic", v, "approval-accept.jsonl"))
	sc := filepath.Join(dir, "approval.json")
	if r := runCodexrec(t, "", nil, "scenario", "from-recording", "-o", sc, fixture); r.code != 0 || len(r.stdout) != 0 {
		t.Fatalf("from-recording: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCodexrec(t, "", nil, "scenario", "from-recording", "-o", sc, fixture); r.code != 2 {
		t.Errorf("an existing -o file: exit %d, want 2", r.code)
	}
	r := runCodexrec(t, "", nil, "scenario", "from-recording", fixture)
	b, _ := os.ReadFile(sc)
	if r.code != 0 || string(r.stdout) != string(b) || !strings.Contains(string(b), `"cwd": "<cwd>"`) {
		t.Errorf("stdout differs from the file, or placeholders were escaped:\n%s", r.stdout)
	}
	out := filepath.Join(dir, "again.jsonl")
	if r := runCodexrec(t, "", nil, "capture", "--scenario", sc, "--codex-version", v, "-o", out); r.code != 0 {
		t.Fatalf("capture of the derived scenario: exit %d: %s", r.code, r.stderr)
	}
	if d := runCodexrec(t, "", nil, "diff", "--ignore-moves", fixture, out); d.code != 0 {
		t.Errorf("capture of the derived scenario differs from the recording:\n%s", d.stdout)
	}
}
