package check_test

import (
	"strings"
	"testing"

	"github.com/codexrec/codexrec/check"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/wire"
)

// TestAnswerShape: the client answers a real command approval request with a decision
// the method's result schema does not allow.
func TestAnswerShape(t *testing.T) {
	m := mutate(t, fixture(t, "approval-accept"))
	i := m.find(c2s, wire.KindResponse, "", 0)
	m.edit(i, func(msg map[string]any) { msg["result"] = map[string]any{"decision": "maybe-later"} })
	res, err := (&check.Checker{Schema: check.SchemaValidator("", "")}).CheckFile(m.write())
	if err != nil {
		t.Fatal(err)
	}
	var got []want
	for _, f := range res.Findings {
		if f.Severity >= check.Warning {
			got = append(got, want{f.Rule, f.Seqs})
			t.Logf("%s %s %v %s: %s", f.Severity, f.Rule, f.Seqs, f.Pointer, f.Message)
		}
	}
	if w := []want{{check.RuleAnswerShape, []int64{m.seqAt(i)}}}; !sameWants(got, w) {
		t.Errorf("got %v, want %v", got, w)
	}
}

// TestSchemaFindingsIncluded: a real 0.171.0 session checked against the 0.163.0
// schema shows the fields 0.171.0 added as schema/undeclared-field warnings, and
// nothing invalid, as codexrec validate does; --disable schema silences them.
func TestSchemaFindingsIncluded(t *testing.T) {
	path := *fixturesDir + "/0.171.0/plain.jsonl"
	res, err := (&check.Checker{Schema: check.SchemaValidator("0.163.0", "")}).CheckFile(path)
	if err != nil {
		t.Fatal(err)
	}
	undeclared := 0
	for _, f := range res.Findings {
		switch {
		case f.Rule == "schema/undeclared-field":
			undeclared++
			if f.Severity != check.Warning || f.Pointer == "" || len(f.Seqs) != 1 {
				t.Errorf("undeclared-field finding: %+v", f)
			}
		case strings.HasPrefix(f.Rule, "schema/"):
			t.Errorf("unexpected %s %v %s: %s", f.Rule, f.Seqs, f.Pointer, f.Message)
		}
	}
	if undeclared == 0 {
		t.Errorf("no schema/undeclared-field finding for a 0.171.0 session against 0.163.0")
	}
	strict, err := (&check.Checker{Schema: check.SchemaValidator("0.163.0", ""), Severity: map[string]check.Severity{"schema": check.Error}}).CheckFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strict.Count(check.Error); n != undeclared {
		t.Errorf("Severity schema=error: %d errors, want the %d undeclared fields", n, undeclared)
	}
	off, err := (&check.Checker{Schema: check.SchemaValidator("0.163.0", ""), Disable: map[string]bool{"schema": true}}).CheckFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range off.Findings {
		if strings.HasPrefix(f.Rule, "schema/") {
			t.Errorf("--disable schema still reports %s", f.Rule)
		}
	}
}

// TestSchemaVersionFromUserAgent: a recording whose header names no Codex version is
// validated against the version its initialize response names (the version policy),
// not skipped.
func TestSchemaVersionFromUserAgent(t *testing.T) {
	m := mutate(t, fixture(t, "plain"))
	m.rec.Header.CodexVersion = ""
	var kept []recorder.Entry
	for _, e := range m.rec.Entries {
		if e.Type != recorder.TypeMeta {
			kept = append(kept, e)
		}
	}
	m.rec.Entries = kept
	i := m.find(s2c, wire.KindNotification, "turn/started", 0)
	m.insert(i+1, recorder.Entry{Type: recorder.TypeFinding, Seq: m.seqAt(i), Dir: s2c, Msg: wire.Message{Method: "turn/started"},
		Rule: "undeclared-field", Severity: "warning", Pointer: "/params/turn/x", Reason: "not declared"})
	res, err := (&check.Checker{Schema: check.SchemaValidator("", "")}).CheckFile(m.write())
	if err != nil {
		t.Fatal(err)
	}
	var got []want
	for _, f := range res.Findings {
		if strings.HasPrefix(f.Rule, "schema/") {
			got = append(got, want{f.Rule, f.Seqs})
		}
	}
	// The initialize response still names the version: the policy validates against
	// it, so the recorded finding (about a field the frame does not have) is not used.
	if w := []want(nil); !sameWants(got, w) {
		t.Errorf("got %v, want %v", got, w)
	}
}

// TestSchemaNearest: a version with no embedded schema is validated against the
// nearest older one, and check says so (info).
func TestSchemaNearest(t *testing.T) {
	res, err := (&check.Checker{Schema: check.SchemaValidator("0.171.5", "")}).CheckFile(*fixturesDir + "/0.171.0/plain.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, f := range res.Findings {
		if f.Rule == "schema/nearest" {
			notes = append(notes, f.Severity.String()+": "+f.Message)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "info: codex 0.171.5 (explicit) has no embedded schema; validating against 0.171.0, the nearest older one") {
		t.Errorf("notes %q", notes)
	}
}

// TestSchemaByteBoundAgrees: frames of more than schema.MaxPendingBytes before the
// initialize response make check choose the version without it (the header's), as
// the recording's validator (schema.SessionValidator) does on the same frames.
func TestSchemaByteBoundAgrees(t *testing.T) {
	m := mutate(t, fixture(t, "plain"))
	m.rec.Header.CodexVersion = "0.163.0"
	at := m.find(s2c, wire.KindResponse, "", 0)
	for i, e := range m.rec.Entries[:at] {
		if e.Type == recorder.TypeMeta && e.Header != nil && e.Header.CodexVersion != "" {
			at = i // the version record learned from the response, noted before it
			break
		}
	}
	huge := m.frame(s2c, `{"method":"item/agentMessage/delta","params":{"threadId":"a","turnId":"b","itemId":"c","delta":"`+
		strings.Repeat("x", schema.MaxPendingBytes)+`"}}`)
	m.insert(at, huge)
	res, err := (&check.Checker{Schema: check.SchemaValidator("", "")}).CheckFile(m.write())
	if err != nil {
		t.Fatal(err)
	}
	sv := &schema.SessionValidator{Header: m.rec.Header.CodexVersion}
	for _, e := range m.rec.Entries {
		if e.Type == recorder.TypeFrame && e.Dir != wire.Stderr {
			sv.Frame(&wire.Frame{Seq: e.Seq, Dir: e.Dir, Line: e.Line, Msg: e.Msg})
		}
	}
	c, ok := sv.Chosen()
	if !ok || res.SchemaVersion != c.Schema || c.Schema != "0.163.0" {
		t.Errorf("check chose %q, the session validator %q (%v): want both the header's 0.163.0", res.SchemaVersion, c.Schema, ok)
	}
}
