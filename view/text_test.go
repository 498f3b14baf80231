package view_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/view"
	"github.com/codexrec/codexrec/wire"
)

func TestMatchMethod(t *testing.T) {
	for _, tc := range []struct {
		glob, method string
		want         bool
	}{
		{"initialize", "initialize", true},
		{"initialize", "initialized", false},
		{"item/*", "item/agentMessage/delta", true},
		{"item/*/delta", "item/agentMessage/delta", true},
		{"item/*/delta", "item/started", false},
		{"*Approval", "item/commandExecution/requestApproval", true},
		{"turn/?tart*", "turn/started", true},
		{"*", "", true},
		{"?", "", false},
		{"thread/**", "thread/status/changed", true},
		{"é?", "éa", true},
	} {
		if got := view.MatchMethod(tc.glob, tc.method); got != tc.want {
			t.Errorf("MatchMethod(%q, %q) = %v, want %v", tc.glob, tc.method, got, tc.want)
		}
	}
}

// TestShowOptions runs the renderer's options over a real approvals session.
func TestShowOptions(t *testing.T) {
	rel := "0.171.0/approval-accept.jsonl"
	rec := fixture(t, rel)
	path := rec.Name
	plain := renderText(t, path, rel, view.Text{})

	// The summaries a person needs: the approval and its decision, the command and
	// its exit code, the agent's message joined from its deltas.
	for _, want := range []string{"item/commandExecution/requestApproval [0]", "approve command ", "decision accept",
		"commandExecution ", ", exit 0", "item/agentMessage/delta ×", "── thread ", " · turn "} {
		if !strings.Contains(plain, want) {
			t.Errorf("timeline lacks %q", want)
		}
	}
	deltas := 0
	for _, e := range rec.Frames() {
		if e.Msg.Method == "item/agentMessage/delta" {
			deltas++
		}
	}
	if got := strings.Count(renderText(t, path, rel, view.Text{Deltas: true}), "item/agentMessage/delta"); got != deltas {
		t.Errorf("with Deltas: %d delta lines, want one per delta frame (%d)", got, deltas)
	}

	only := renderText(t, path, rel, view.Text{Methods: []string{"item/*Approval"}})
	for _, l := range frameLines(only) {
		if !strings.Contains(l, "requestApproval") {
			t.Errorf("--method item/*Approval kept %q", l)
		}
	}
	if n := len(frameLines(only)); n != 2 {
		t.Errorf("--method item/*Approval: %d frames, want the request and its answer:\n%s", n, only)
	}

	raw := renderText(t, path, rel, view.Text{Raw: true, Methods: []string{"initialize"}})
	first := string(wire.Content(rec.Frames()[0].Line))
	if !strings.Contains(raw, " "+first+"\n") {
		t.Errorf("--raw does not print the exact message:\n%s", raw)
	}

	colour := renderText(t, path, rel, view.Text{Color: true})
	if !strings.Contains(colour, "\x1b[32m← ") || !strings.Contains(colour, "\x1b[0m") {
		t.Errorf("colour output lacks escapes")
	}

	// --thread: a prefix of the thread id keeps that thread's frames only.
	var thread string
	for _, l := range strings.Split(plain, "\n") {
		if strings.HasPrefix(l, "── thread ") {
			thread = strings.Fields(l)[2]
			break
		}
	}
	th := renderText(t, path, rel, view.Text{Thread: thread[:8]})
	if len(frameLines(th)) == 0 || strings.Contains(th, "initialize") || strings.Contains(th, "! stderr") {
		t.Errorf("--thread %s kept session-level frames or none:\n%s", thread[:8], th)
	}
	if got := renderText(t, path, rel, view.Text{Thread: "no-such-thread"}); len(frameLines(got)) != 0 {
		t.Errorf("--thread no-such-thread printed frames:\n%s", got)
	}
}

// frameLines are the lines of a timeline that show a frame (they carry "#seq").
func frameLines(out string) []string {
	var ls []string
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) > 1 && strings.HasPrefix(f[1], "#") {
			ls = append(ls, l)
		}
	}
	return ls
}

// TestShowNotes: findings and redactions print under their frame, and not at all when
// their frame is filtered out. The captured fixtures are clean, so the annotations are
// added here to real frames, as record's validation and sanitizing write them.
func TestShowNotes(t *testing.T) {
	rec := fixture(t, "0.171.0/approval-accept.jsonl")
	approval := seqOf(t, rec, wire.ServerToClient, "item/commandExecution/requestApproval")
	rec.Entries = insertAfter(rec.Entries, approval, recorder.Entry{Type: recorder.TypeFinding, Seq: approval,
		Rule: "undeclared-field", Severity: "warning", Pointer: "/params/startedAtMs", Reason: "not in the schema"})
	rec.Entries = insertAfter(rec.Entries, approval, recorder.Entry{Type: recorder.TypeRedaction, Seq: approval,
		Rule: "path-map", Pointer: "/params/cwd", Detail: "<cwd>"})
	render := func(cfg view.Text) string {
		var out strings.Builder
		cfg.W = &out
		cfg.Header(rec.Name, rec.Header)
		for i := range rec.Entries {
			cfg.Entry(&rec.Entries[i])
		}
		cfg.Trailer(rec.Trailer)
		return out.String()
	}
	lines := strings.Split(render(view.Text{}), "\n")
	for i, l := range lines {
		if strings.Contains(l, fmt.Sprintf("#%-5d", approval)) {
			want := []string{
				fmt.Sprintf("✂ #%d redacted path-map at /params/cwd → <cwd>", approval),
				fmt.Sprintf("⚑ #%d finding warning undeclared-field /params/startedAtMs: not in the schema", approval),
			}
			for j, w := range want {
				if i+1+j >= len(lines) || strings.TrimSpace(lines[i+1+j]) != w {
					t.Errorf("line %d after the frame = %q, want %q", j+1, lines[i+1+j], w)
				}
			}
		}
	}
	if out := render(view.Text{Methods: []string{"initialize"}}); strings.Contains(out, "⚑") || strings.Contains(out, "✂") {
		t.Errorf("notes of a filtered-out frame were printed:\n%s", out)
	}
}
