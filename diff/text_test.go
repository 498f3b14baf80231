package diff_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/diff"
)

// TestTextMasksRecordedValues: the text report prints values from recordings, which
// may not be sanitized; a secret is masked and a terminal escape is shown, not sent.
func TestTextMasksRecordedValues(t *testing.T) {
	const secret = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH"
	r := &diff.Report{Groups: []diff.Group{{Dir: "c2s", Kind: "request", Method: "turn/start\x1b[2J",
		Changes: []diff.Change{{Change: diff.ValueChanged, Pointer: "/params/text", Old: `"hello"`, New: `"` + secret + "\x1b]0;x\x07" + `"`}}}}}
	var b bytes.Buffer
	if err := r.WriteText(&b, false); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, secret) || strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("the report prints a secret or a raw escape:\n%q", out)
	}
	if !strings.Contains(out, "<redacted:") || !strings.Contains(out, `\x1b]0;x`) {
		t.Errorf("the report lost the masked value:\n%q", out)
	}
}
