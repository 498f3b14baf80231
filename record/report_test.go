package record_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/schema"
)

func TestReportWriteText(t *testing.T) {
	r := record.Report{
		Schema:     schema.Choice{Schema: "0.171.0"},
		Notes:      []string{"schema 0.171.0 chosen from the initialize answer"},
		Redactions: map[string]int{"openai-key": 2, "known-secret": 1},
	}
	for i := range 3 {
		r.Findings = append(r.Findings, schema.Finding{Seq: int64(i + 1), Pointer: "/params/x", Reason: "unexpected"})
	}
	var b bytes.Buffer
	if more := r.WriteText(&b, record.TextOptions{}); more != 0 || b.String() != "sanitize: 3 secret(s) redacted (known-secret 1, openai-key 2)\n" {
		t.Errorf("redactions only: more %d, text %q", more, b.String())
	}
	b.Reset()
	more := r.WriteText(&b, record.TextOptions{Prefix: "p: ", Validated: true, Show: 2})
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if more != 1 || len(lines) != 5 || lines[1] != "p: "+r.Notes[0] || !strings.HasPrefix(lines[2], "p: schema 0.171.0: ") ||
		!strings.HasPrefix(lines[3], "  1 ") || !strings.Contains(lines[3], " - ") || !strings.HasSuffix(lines[4], "/params/x: unexpected") {
		t.Errorf("more %d, text:\n%s", more, b.String())
	}
	b.Reset()
	if more := (record.Report{Schema: r.Schema}).WriteText(&b, record.TextOptions{Validated: true}); more != 0 || b.String() != "schema 0.171.0: no findings\n" {
		t.Errorf("no findings: more %d, text %q", more, b.String())
	}
}
