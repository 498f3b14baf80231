package check_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/check"
	"github.com/codexrec/codexrec/internal/codexbin"
)

// TestAssertions runs each assertion over real captures: it fires where the session
// breaks it and stays silent where it holds.
func TestAssertions(t *testing.T) {
	path := func(s string) string { return filepath.Join(*fixturesDir, codexbin.Newest, s+".jsonl") }
	for _, tc := range []struct {
		name     string
		scenario string
		a        check.Assertions
		want     []string // "rule: message part"
	}{
		{"expected methods present", "plain", check.Assertions{ExpectMethods: []string{"turn/start", "turn/completed", "initialized"}}, nil},
		{"expected method missing", "plain", check.Assertions{ExpectMethods: []string{"turn/start", "thread/fork"}},
			[]string{"expect-method: thread/fork never appears"}},
		{"forbidden method present", "interrupt", check.Assertions{ForbidMethods: []string{"turn/interrupt"}},
			[]string{"forbid-method: request turn/interrupt, a forbidden method"}},
		{"forbidden method absent", "plain", check.Assertions{ForbidMethods: []string{"turn/interrupt"}}, nil},
		{"turn too long", "plain", check.Assertions{MaxTurnDuration: time.Millisecond}, []string{"max-turn-duration: the turn took "}},
		{"turn short enough", "plain", check.Assertions{MaxTurnDuration: time.Hour}, nil},
		{"approval asked", "approval-accept", check.Assertions{ExpectApproval: true}, nil},
		{"no approval", "plain", check.Assertions{ExpectApproval: true}, []string{"expect-approval: the server never asked"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ck := &check.Checker{Assert: tc.a}
			res, err := ck.CheckFile(path(tc.scenario))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range res.Findings {
				if check.IsAssertion(f.Rule) {
					got = append(got, f.Rule+": "+f.Message)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("assertion findings %q, want %q", got, tc.want)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("finding %q, want %q", got[i], w)
				}
			}
			if !slices.Equal(res.Asserted, tc.a.AssertionRules()) {
				t.Errorf("Asserted %q", res.Asserted)
			}
		})
	}
}

// TestAssertionReports: an assertion is a test case in JUnit and a rule in SARIF
// only when it was set, failed when broken.
func TestAssertionReports(t *testing.T) {
	ck := &check.Checker{Assert: check.Assertions{ExpectMethods: []string{"thread/fork"}}}
	res, err := ck.CheckFile(filepath.Join(*fixturesDir, codexbin.Newest, "plain.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var junit bytes.Buffer
	if err := check.WriteJUnit(&junit, []*check.Result{res}, check.Error, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(junit.String(), `<failure message="expect-method: 1 finding" type="error">`) || strings.Contains(junit.String(), `name="forbid-method"`) {
		t.Errorf("JUnit:\n%s", junit.String())
	}
	var sarif bytes.Buffer
	if err := check.WriteSARIF(&sarif, []*check.Result{res}, nil); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string
		Runs    []struct {
			Tool struct {
				Driver struct{ Rules []struct{ ID string } }
			}
			Results []struct {
				RuleID    string
				RuleIndex int
				Level     string
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct{ ArtifactLocation struct{ URI string } }
				}
			}
		}
	}
	if err := json.Unmarshal(sarif.Bytes(), &log); err != nil || log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("SARIF: %v\n%s", err, sarif.String())
	}
	run := log.Runs[0]
	var ids []string
	for _, r := range run.Tool.Driver.Rules {
		ids = append(ids, r.ID)
	}
	if !slices.Contains(ids, "expect-method") || slices.Contains(ids, "forbid-method") {
		t.Errorf("SARIF rules %q", ids)
	}
	found := false
	for _, r := range run.Results {
		if ids[r.RuleIndex] != r.RuleID {
			t.Errorf("result %s has ruleIndex %d (%s)", r.RuleID, r.RuleIndex, ids[r.RuleIndex])
		}
		if r.RuleID == "expect-method" {
			found = r.Level == "error" && strings.Contains(r.Message.Text, "thread/fork never appears") &&
				strings.HasSuffix(r.Locations[0].PhysicalLocation.ArtifactLocation.URI, "plain.jsonl")
		}
	}
	if !found {
		t.Errorf("no expect-method result:\n%s", sarif.String())
	}
}
