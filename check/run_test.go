package check_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/check"
)

// TestRun: Run checks what Paths name, writes each report it is asked for and says
// what failed; settings, a schema and report files that cannot be used are typed
// errors before (or instead of) a result.
func TestRun(t *testing.T) {
	plain := filepath.Join("..", "fixtures", "hermetic", "0.171.0", "plain.jsonl")
	interrupt := filepath.Join("..", "fixtures", "hermetic", "0.171.0", "interrupt.jsonl")
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.jsonl")
	junit, sarif := filepath.Join(dir, "out.xml"), filepath.Join(dir, "out.sarif")
	// The JUnit file replaces a link, never writing through it.
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("keep\n"), 0o644)
	if err := os.Symlink(target, junit); err != nil {
		t.Fatal(err)
	}
	var out, log bytes.Buffer
	res, err := check.Run(context.Background(), check.Options{Paths: []string{plain, missing, interrupt}, Out: &out, JSON: true,
		FailOn: check.Warning, JUnit: junit, SARIF: sarif, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 2 || res.Results[1].File != interrupt || !errors.Is(res.Unread, check.ErrInput) {
		t.Fatalf("%d results, unread %v; want plain and interrupt, missing unread", len(res.Results), res.Unread)
	}
	// interrupt has an item-abandoned warning: it fails at warning.
	if !res.Failed || !strings.Contains(log.String(), "missing.jsonl") || strings.Count(log.String(), "\n") != 1 {
		t.Errorf("failed %v, log %q; want failed and the missing file said once", res.Failed, log.String())
	}
	var doc struct{ Failed bool }
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || !doc.Failed {
		t.Errorf("JSON report %v: %.200s", err, out.String())
	}
	if b, _ := os.ReadFile(target); string(b) != "keep\n" {
		t.Errorf("JUnit written through the link: %q", b)
	}
	for _, p := range []string{junit, sarif} {
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
			t.Errorf("%s: %v %v: want a report file", p, fi, err)
		}
	}
	if fi, _ := os.Lstat(junit); fi.Mode().Perm() != 0o600 {
		t.Errorf("JUnit file %v, want 0600", fi.Mode())
	}

	// The same recording passes at error, and text is written without a JSON flag.
	out.Reset()
	res, err = check.Run(context.Background(), check.Options{Paths: []string{interrupt}, FailOn: check.Error, Out: &out})
	if err != nil || res.Failed || res.Unread != nil || !bytes.Contains(out.Bytes(), []byte("item-abandoned")) {
		t.Errorf("at error: %v failed %v unread %v\n%s", err, res.Failed, res.Unread, out.String())
	}

	var se *check.SettingError
	var rf *check.ReportFileError
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		o    check.Options
		ctx  context.Context
		ok   func(error) bool
	}{
		{"no paths", check.Options{}, nil, func(err error) bool { return errors.Is(err, check.ErrNoPaths) }},
		{"unknown rule first", check.Options{Disable: []string{"no-such-rule"}}, nil, func(err error) bool { return errors.As(err, &se) && se.Setting == "Disable" }},
		{"bad severity", check.Options{Paths: []string{plain}, Severity: []string{"late-event"}}, nil, func(err error) bool { return errors.As(err, &se) && se.Setting == "Severity" }},
		{"bad schema version", check.Options{Paths: []string{plain}, Version: "banana"}, nil, func(err error) bool { return errors.Is(err, check.ErrSchema) }},
		{"missing schema dir", check.Options{Paths: []string{plain}, SchemaDir: filepath.Join(dir, "none")}, nil, func(err error) bool { return errors.Is(err, check.ErrSchema) }},
		{"report file", check.Options{Paths: []string{plain}, SARIF: filepath.Join(dir, "no", "such", "dir")}, nil,
			func(err error) bool {
				return errors.As(err, &rf) && rf.Report == "SARIF" && errors.Is(err, os.ErrNotExist)
			}},
		{"done", check.Options{Paths: []string{plain}}, canceled, func(err error) bool { return errors.Is(err, context.Canceled) }},
	} {
		ctx := tc.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		if _, err := check.Run(ctx, tc.o); !tc.ok(err) {
			t.Errorf("%s: error %v", tc.name, err)
		}
	}
	// Disabling schema skips the schema named, however bad.
	if _, err := check.Run(context.Background(), check.Options{Paths: []string{plain}, Disable: []string{"schema"}, Version: "banana"}); err != nil {
		t.Errorf("schema disabled: %v", err)
	}
}

func TestWriteRules(t *testing.T) {
	var b bytes.Buffer
	if err := check.WriteRules(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != len(check.Rules()) || !strings.HasPrefix(lines[0], check.Rules()[0].ID+" ") {
		t.Errorf("%d lines for %d rules:\n%s", len(lines), len(check.Rules()), b.String())
	}
}
