package check_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/check"
	"github.com/codexrec/codexrec/internal/testing/hostile"
)

// A rule broken at every frame keeps ExampleLimit findings of its method and counts
// the rest: counts, the text report's totals and the exit decision see them all.
func TestElidedFindings(t *testing.T) {
	n := check.ExampleLimit + 500
	rec := hostile.FramesRecording(n) // every frame's tokenUsage.total is a number, not an object
	seen := 0
	ck := &check.Checker{Schema: check.SchemaValidator("", ""), OnFinding: func(check.Finding) { seen++ }}
	res, err := ck.Check(bytes.NewReader(rec), "frames.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	kept := 0
	for _, f := range res.Findings {
		if f.Rule == "schema/invalid" {
			kept++
		}
	}
	if kept != check.ExampleLimit {
		t.Errorf("kept %d schema/invalid findings, want %d", kept, check.ExampleLimit)
	}
	if len(res.Elided) != 1 || res.Elided[0].Count != 500 || res.Elided[0].Method != "thread/tokenUsage/updated" || res.Elided[0].Rule != "schema/invalid" {
		t.Errorf("elided = %+v, want 500 schema/invalid of thread/tokenUsage/updated", res.Elided)
	}
	if got := res.Count(check.Error); got != n+1 { // and unknown-thread
		t.Errorf("Count(error) = %d, want %d", got, n+1)
	}
	if seen < n+1 {
		t.Errorf("OnFinding saw %d findings, want every one (%d)", seen, n+1)
	}
	var b bytes.Buffer
	if err := check.WriteText(&b, []*check.Result{res}, check.Error); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		fmt.Sprintf("%d errors", n+1),
		fmt.Sprintf("schema/invalid (%d)", n),
		fmt.Sprintf("... and %d more (the JSON report lists the first %d of each method and counts the rest)", n-check.TextLimit, check.ExampleLimit),
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text report lacks %q:\n%.600s", want, b.String())
		}
	}
	b.Reset()
	if err := check.WriteJUnit(&b, []*check.Result{res}, check.Error, nil); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("schema: %d findings", n); !strings.Contains(b.String(), want) {
		t.Errorf("junit lacks %q", want)
	}
}
