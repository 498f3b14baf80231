package schema_test

import (
	"sort"
	"testing"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/wire"
)

func checkAll(t *testing.T, set *schema.Set, frames []wire.Frame) []schema.Finding {
	t.Helper()
	v := schema.NewValidator(set)
	var out []schema.Finding
	for i := range frames {
		out = append(out, v.Check(&frames[i])...)
	}
	return out
}

// TestRealSessionsClean: every frame a real binary sends or accepts validates clean
// against that binary's own schemas, with and without the experimental API.
func TestRealSessionsClean(t *testing.T) {
	for _, version := range codexbin.Versions {
		for _, exp := range []bool{false, true} {
			t.Run(fmt2(version, exp), func(t *testing.T) {
				frames := realSession(t, version, exp)
				set, err := schema.Load(version)
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range checkAll(t, set, frames) {
					t.Errorf("finding: %s\n  frame: %.300s", f, frames[f.Seq-1].Line)
				}
				t.Logf("%d frames clean", len(frames))
			})
		}
	}
}

func fmt2(v string, exp bool) string {
	if exp {
		return v + "/experimentalApi"
	}
	return v
}

// TestNewerSessionAgainstOlderSchema: a 0.171.0 session checked against 0.163.0 shows
// its new fields as undeclared-field and nothing as invalid: the schemas are open
// objects, so this walk is the only way a newer Codex shows up.
func TestNewerSessionAgainstOlderSchema(t *testing.T) {
	frames := realSession(t, codexbin.Newest, false)
	set, err := schema.Load(codexbin.Oldest)
	if err != nil {
		t.Fatal(err)
	}
	undeclared := map[string]bool{}
	for _, f := range checkAll(t, set, frames) {
		if f.Rule != schema.RuleUndeclaredField {
			t.Errorf("want only undeclared-field, got %s", f)
			continue
		}
		undeclared[f.Method+" "+f.Pointer] = true
	}
	for _, want := range []string{
		"thread/start /result/thread/attachedToThreadId",
		"thread/started /params/thread/attachedToThreadId",
		"item/started /params/item/startedAtMs",
		"item/completed /params/item/completedAtMs",
	} {
		if !undeclared[want] {
			t.Errorf("missing undeclared-field %s", want)
		}
	}
	var all []string
	for k := range undeclared {
		all = append(all, k)
	}
	sort.Strings(all)
	t.Logf("undeclared in 0.163.0: %v", all)
}
