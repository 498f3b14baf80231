package check_test

import (
	"strings"
	"testing"

	"codexrec/check"
	"codexrec/internal/wire"
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
