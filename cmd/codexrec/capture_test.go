package main_test

import (
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

// TestCaptureCommand captures the plain scenario from each pinned binary by running
// the built codexrec, as make fixtures does, and checks what the tap chain (validation,
// sanitizing) left in the recording. Every scenario is exercised against both binaries
// in package fixtures; here the command's own plumbing is under test.
func TestCaptureCommand(t *testing.T) {
	for _, v := range codexbin.Versions {
		t.Run(v, func(t *testing.T) {
			codextest.Binary(t, v)
			out := filepath.Join(t.TempDir(), "plain.jsonl")
			// Run from the package directory: --codex-version finds the cache through
			// the module root, as it does for make fixtures.
			r := runCodexrec(t, "", nil, "capture", "--scenario", "plain", "--codex-version", v, "-o", out)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if !strings.Contains(string(r.stderr), "codexrec capture: plain with codex "+v+": 1 turn(s), 1 segment(s), 1 model request(s)") {
				t.Errorf("stderr: %s", r.stderr)
			}
			if len(r.stdout) != 0 {
				t.Errorf("capture wrote to stdout: %s", r.stdout)
			}
			fi, err := os.Stat(out)
			if err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("recording %v, mode %v", err, fi.Mode())
			}
			rec, err := recorder.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			h := rec.Header
			if h.Scenario != "plain" || h.CodexVersion != v || h.SchemaVersion == "" || h.Sanitize == nil || !h.Sanitize.Salted {
				t.Errorf("header %+v", h)
			}
			if strings.Join(h.Command[:2], " ") != "codex app-server" || !strings.Contains(strings.Join(h.Command, " "), "127.0.0.1:<port>") {
				t.Errorf("header command %q is not portable", h.Command)
			}
			if rec.Trailer == nil || rec.Trailer.Ended != recorder.EndClientEOF || rec.Trailer.Segments != 1 {
				t.Errorf("trailer %+v", rec.Trailer)
			}
			b, _ := os.ReadFile(out)
			for _, p := range []string{os.TempDir() + "/", mustGetwd(t)} {
				if strings.Contains(string(b), p) {
					t.Errorf("the recording contains the path %s", p)
				}
			}
			start := firstFrameOf(rec, wire.ServerToClient, "thread/start")
			if start == nil || gjson.GetBytes(start.JSON(), "result.thread.cwd").Str != "<cwd>" {
				t.Errorf("thread/start's cwd was not mapped to <cwd>")
			}
			s := runCodexrec(t, "", nil, "summary", out)
			if !strings.Contains(string(s.stdout), `agent      "Hello, codexrec! This reply was streamed by a scripted fake model."`) {
				t.Errorf("summary:\n%s", s.stdout)
			}
		})
	}
}

// The MCP scenario runs codexrec itself as the MCP server (mcp-fixture), and resume
// spans two server lifetimes: both only the command can show.
func TestCaptureCommandMCPAndResume(t *testing.T) {
	codex := codextest.Binary(t, codexbin.Newest)
	dir := t.TempDir()
	mcpOut, resumeOut := filepath.Join(dir, "mcp.jsonl"), filepath.Join(dir, "resume.jsonl")
	if r := runCodexrec(t, dir, nil, "capture", "--scenario", "mcp-tool", "--codex", codex, "-o", mcpOut); r.code != 0 {
		t.Fatalf("mcp-tool: exit %d: %s", r.code, r.stderr)
	}
	rec, err := recorder.ReadFile(mcpOut)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(rec.Header.Command, " "), `mcp_servers.fixture={command="<mcp-server>"`) {
		t.Errorf("header command %q", rec.Header.Command)
	}
	found := false
	for _, e := range rec.Frames(wire.ServerToClient) {
		if e.Msg.Method == "item/completed" && gjson.GetBytes(e.JSON(), "params.item.result.content.0.text").Str == "echo: codexrec" {
			found = true
		}
	}
	if !found {
		t.Error("no completed MCP tool call answered by codexrec mcp-fixture")
	}

	if r := runCodexrec(t, dir, nil, "capture", "--scenario", "resume", "--codex", codex, "-o", resumeOut); r.code != 0 {
		t.Fatalf("resume: exit %d: %s", r.code, r.stderr)
	}
	rec, err = recorder.ReadFile(resumeOut)
	if err != nil {
		t.Fatal(err)
	}
	segs := rec.Segments()
	if len(segs) != 2 || rec.Trailer.Segments != 2 {
		t.Fatalf("%d segments, trailer %+v", len(segs), rec.Trailer)
	}
	for i, seg := range segs {
		if seg[0].Type != recorder.TypeSegment || seg[0].Command[0] != "codex" || seg[len(seg)-1].Type != recorder.TypeExit {
			t.Errorf("segment %d: first %+v, last %+v", i+1, seg[0], seg[len(seg)-1])
		}
	}
}

func TestCaptureScenarioFile(t *testing.T) {
	codex := codextest.Binary(t, codexbin.Newest)
	dir := t.TempDir()
	file := filepath.Join(dir, "two-turns.json")
	os.WriteFile(file, []byte(`{
  "name": "two-turns",
  "turns": [{"input": "one"}, {"input": "two"}],
  "responses": [
    {"output": [{"type": "message", "text": "first"}]},
    {"expect": ["first"], "output": [{"type": "message", "text": "second"}]}
  ]
}`), 0o600)
	out := filepath.Join(dir, "out.jsonl")
	if r := runCodexrec(t, dir, nil, "capture", "--scenario", file, "--codex", codex, "-o", out); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rec, err := recorder.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Header.Scenario != "two-turns" {
		t.Errorf("header scenario %q", rec.Header.Scenario)
	}
	var replies []string
	for _, e := range rec.Frames(wire.ServerToClient) {
		if e.Msg.Method == "item/completed" && gjson.GetBytes(e.JSON(), "params.item.type").Str == "agentMessage" {
			replies = append(replies, gjson.GetBytes(e.JSON(), "params.item.text").Str)
		}
	}
	if strings.Join(replies, ",") != "first,second" {
		t.Errorf("replies %q", replies)
	}
}

func TestCaptureErrors(t *testing.T) {
	dir := t.TempDir()
	dying := filepath.Join(dir, "dying-codex")
	// A stand-in for codex that dies at start: the real binary cannot be made to.
	os.WriteFile(dying, []byte("#!/bin/sh\necho 'fatal: cannot load config' >&2\nexit 3\n"), 0o700)
	existing := filepath.Join(dir, "existing.jsonl")
	os.WriteFile(existing, []byte("keep me"), 0o600)
	tests := []struct {
		name string
		args []string
		want []string
		file string // must not exist afterwards, unless keep
		keep bool
	}{
		{"no scenario", []string{"-o", filepath.Join(dir, "a.jsonl")}, []string{"--scenario is required", "plain"}, "", false},
		{"no output", []string{"--scenario", "plain"}, []string{"-o FILE is required"}, "", false},
		{"unknown scenario", []string{"--scenario", "nope", "-o", filepath.Join(dir, "b.jsonl")}, []string{`no such scenario "nope"`, "approval-accept"}, "b.jsonl", false},
		{"bad scenario file", []string{"--scenario", filepath.Join(dir, "missing.json"), "-o", filepath.Join(dir, "c.jsonl")}, []string{"missing.json"}, "c.jsonl", false},
		{"missing version", []string{"--scenario", "plain", "--codex-version", "9.9.9", "-o", filepath.Join(dir, "d.jsonl")}, []string{"codex 9.9.9", "codexrec codex install 9.9.9", "--install"}, "d.jsonl", false},
		{"both codex flags", []string{"--scenario", "plain", "--codex", dying, "--codex-version", "0.163.0", "-o", filepath.Join(dir, "e.jsonl")}, []string{"exclude each other"}, "e.jsonl", false},
		{"exists", []string{"--scenario", "plain", "--codex", dying, "-o", existing}, []string{"already exists"}, "", false},
		{"early exit", []string{"--scenario", "plain", "--codex", dying, "-o", filepath.Join(dir, "f.jsonl")}, []string{"exited before the scenario was done", "exit code 3", "fatal: cannot load config", "--keep-failed"}, "f.jsonl", false},
		{"early exit kept", []string{"--scenario", "plain", "--codex", dying, "--keep-failed", "-o", filepath.Join(dir, "g.jsonl")}, []string{"exit code 3", "kept"}, "g.jsonl", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCodexrec(t, dir, nil, append([]string{"capture"}, tt.args...)...)
			if r.code != 2 {
				t.Errorf("exit %d, want 2; stderr: %s", r.code, r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(r.stderr), w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
			if tt.file != "" {
				_, err := os.Stat(filepath.Join(dir, tt.file))
				if tt.keep != (err == nil) {
					t.Errorf("recording exists: %v, want %v", err == nil, tt.keep)
				}
			}
		})
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep me" {
		t.Error("capture overwrote an existing file without --force")
	}
	rec, err := recorder.ReadFile(filepath.Join(dir, "g.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Trailer == nil || rec.Trailer.Ended != recorder.EndError || !strings.Contains(rec.Trailer.Error, "exit code 3") {
		t.Errorf("kept recording's trailer %+v", rec.Trailer)
	}
}

func TestMCPFixtureCommand(t *testing.T) {
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}` + "\n")
	r := runCodexrec(t, "", in, "mcp-fixture")
	if r.code != 0 || gjson.GetBytes(r.stdout, "result.content.0.text").Str != "3" {
		t.Errorf("exit %d, stdout %s, stderr %s", r.code, r.stdout, r.stderr)
	}
}

func firstFrameOf(rec *recorder.Recording, dir wire.Direction, method string) *recorder.Entry {
	for _, e := range rec.Frames(dir) {
		if e.Msg.Method == method {
			return &e
		}
	}
	return nil
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(filepath.Dir(wd)) // the module root
}

// TestCaptureToStdout: capture and rerun -o - write the published recording to
// stdout, byte for byte what the guard let through (it parses as a recording with
// its trailer), say "-> stdout", create no file named - and leave no temporary
// directory behind.
func TestCaptureToStdout(t *testing.T) {
	v := codexbin.Newest
	codex := codextest.Binary(t, v)
	plain, err := filepath.Abs(replayFixture(v, "plain"))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"capture", "--scenario", "plain", "--codex", codex, "-o", "-"},
		{"rerun", "--codex", codex, "-o", "-", plain},
	} {
		t.Run(args[0], func(t *testing.T) {
			dir, tmp := t.TempDir(), t.TempDir()
			r := runIn(t, dir, []string{"TMPDIR=" + tmp}, nil, args...)
			if r.code != 0 || !strings.Contains(string(r.stderr), "codexrec "+args[0]+": plain with codex at "+codex+": 1 turn(s)") || !strings.HasSuffix(string(r.stderr), " -> stdout\n") {
				t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
			}
			out := filepath.Join(t.TempDir(), "out.jsonl")
			if err := os.WriteFile(out, r.stdout, 0o600); err != nil {
				t.Fatal(err)
			}
			rec, err := recorder.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if len(rec.Problems) > 0 || rec.Trailer == nil || rec.Trailer.Ended != recorder.EndClientEOF || rec.Header.CodexVersion != v || firstFrameOf(rec, wire.ServerToClient, "turn/completed") == nil {
				t.Errorf("stdout is not the whole recording: problems %v, trailer %+v, header %+v", rec.Problems, rec.Trailer, rec.Header)
			}
			if _, err := os.Lstat(filepath.Join(dir, "-")); err == nil {
				t.Errorf("a file named - was created")
			}
			if left, _ := os.ReadDir(tmp); len(left) > 0 {
				t.Errorf("left in TMPDIR: %v", left)
			}
		})
	}
}
