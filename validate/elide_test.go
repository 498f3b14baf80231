package validate_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/testing/hostile"
	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/validate"
)

// TestFindingsElided: a recording that breaks a rule at every frame lists the
// first ExampleLimit findings of its method and counts the rest, in the text's
// closing line, the JSON document, the JSON Lines and the failure; a recording
// under the limit lists everything and counts nothing.
func TestFindingsElided(t *testing.T) {
	dir := t.TempDir()
	// Every frame of FramesRecording is invalid against the schema (tokenUsage.total
	// is an object there).
	n := validate.ExampleLimit + 250
	path := filepath.Join(dir, "many.jsonl")
	if err := os.WriteFile(path, hostile.FramesRecording(n), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := validate.File(path, validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != validate.ExampleLimit || res.Frames != n {
		t.Fatalf("%d findings listed of %d frames, want %d", len(res.Findings), res.Frames, validate.ExampleLimit)
	}
	for i, f := range res.Findings {
		if f.Seq != int64(i+1) || f.Rule != schema.RuleInvalid {
			t.Fatalf("finding %d: %v, want the first frames' in order", i, f)
		}
	}
	want := []validate.Elided{{Rule: schema.RuleInvalid, Method: "thread/tokenUsage/updated", Count: 250}}
	if fmt.Sprint(res.Elided) != fmt.Sprint(want) {
		t.Errorf("elided %v, want %v", res.Elided, want)
	}
	var b bytes.Buffer
	if err := res.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != validate.ExampleLimit+2 ||
		lines[len(lines)-2] != path+": 250 more invalid findings of thread/tokenUsage/updated, not listed (a file lists the first 1000 of a rule and method, 10000 of a rule)" ||
		!strings.HasSuffix(lines[len(lines)-1], fmt.Sprintf(": %d frames, %d findings (%d invalid)", n, n, n)) {
		t.Errorf("text: %d lines, ending\n%s", len(lines), strings.Join(lines[max(len(lines)-3, 0):], "\n"))
	}

	var rep validate.Report
	rep.Add(res)
	b.Reset()
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc validate.Report
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if f := doc.Files[0]; len(f.Findings) != validate.ExampleLimit ||
		fmt.Sprint(f.Elided) != "[{invalid thread/tokenUsage/updated error 250}]" {
		t.Errorf("JSON: %d findings, elided %v", len(f.Findings), f.Elided)
	}

	b.Reset()
	if err := res.WriteJSONL(&b); err != nil {
		t.Fatal(err)
	}
	jl := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	var last validate.ElidedLine
	if err := json.Unmarshal([]byte(jl[len(jl)-1]), &last); err != nil || len(jl) != validate.ExampleLimit+1 ||
		last != (validate.ElidedLine{File: path, SchemaVersion: res.SchemaVersion, Rule: "invalid", Method: "thread/tokenUsage/updated", Severity: "error", Elided: 250}) {
		t.Errorf("JSONL: %d lines, last %s (%v)", len(jl), jl[len(jl)-1], err)
	}

	var out bytes.Buffer
	failed, err := validate.Files([]string{path}, &out, validate.FilesOptions{Fails: func(r schema.Rule) bool { return r == schema.RuleInvalid }})
	if err != nil || !failed {
		t.Errorf("Files: failed %v, %v; want failed", failed, err)
	}

	// Under the limit: nothing counted apart, no extra line.
	small := filepath.Join(dir, "small.jsonl")
	if err := os.WriteFile(small, hostile.FramesRecording(validate.ExampleLimit), 0o600); err != nil {
		t.Fatal(err)
	}
	if res, err = validate.File(small, validate.Options{}); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	res.WriteText(&b)
	if len(res.Findings) != validate.ExampleLimit || res.Elided != nil || strings.Count(b.String(), "\n") != validate.ExampleLimit+1 {
		t.Errorf("at the limit: %d findings, elided %v, %d lines", len(res.Findings), res.Elided, strings.Count(b.String(), "\n"))
	}
}

// TestFindingsElidedManyMethods: a rule broken by a new method at every frame lists
// 10 times ExampleLimit findings in all, names 1000 methods of the rest one by one
// and counts the others under "*".
func TestFindingsElidedManyMethods(t *testing.T) {
	const n = 10*validate.ExampleLimit + 1500
	var b bytes.Buffer
	b.WriteString(`{"type":"header","format":1,"codexVersion":"0.171.0"}` + "\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `{"type":"frame","seq":%d,"t":0.1,"dir":"s2c","kind":"notification","method":"x/m%d","msg":{"method":"x/m%d","params":{}}}`+"\n", i, i, i)
	}
	path := filepath.Join(t.TempDir(), "methods.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := validate.File(path, validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	named, counted, star := 0, 0, 0
	for _, e := range res.Elided {
		if e.Rule != schema.RuleUnknownMethod {
			t.Fatalf("elided %v", e)
		}
		counted += e.Count
		if e.Method == "*" {
			star = e.Count
		} else {
			named++
		}
	}
	if len(res.Findings) != 10*validate.ExampleLimit || named != 1000 || star != 500 || counted != 1500 {
		t.Errorf("%d listed, %d methods named, %d under *, %d counted", len(res.Findings), named, star, counted)
	}
	var out bytes.Buffer
	res.WriteText(&out)
	if !strings.Contains(out.String(), path+": 500 more unknown-method findings of other methods, not listed") ||
		!strings.HasSuffix(out.String(), fmt.Sprintf("%d findings (%d unknown-method)\n", n, n)) {
		t.Errorf("text ends %q", out.String()[max(out.Len()-400, 0):])
	}
}
