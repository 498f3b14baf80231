package record

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
)

// TestWithoutRuleNames: only this program's own list of rules is blanked, the line
// stays valid JSON of the same length, and a list that differs is left as it is.
func TestWithoutRuleNames(t *testing.T) {
	h := recorder.Header{Command: []string{"codex"}, Sanitize: &recorder.SanitizeInfo{Rules: sanitize.RuleNames(), SecretEnvs: []string{"X"}}}
	line, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	out := withoutRuleNames(line)
	if len(out) != len(line) || !json.Valid(out) {
		t.Fatalf("blanked header is not the same length of valid JSON: %s", out)
	}
	if bytes.Contains(out, []byte(sanitize.RuleNames()[0])) || !bytes.Contains(out, []byte(`"secretEnvs":["X"]`)) {
		t.Errorf("blanked header: %s", out)
	}
	other := bytes.Replace(line, []byte(`"rules":["`), []byte(`"rules":["sk-`), 1)
	if got := withoutRuleNames(other); !bytes.Equal(got, other) {
		t.Errorf("a list other than the program's was blanked: %s", got)
	}
	if !strings.Contains(string(line), `"sanitize":{"rules":[`) {
		t.Fatalf("the header's shape changed: %s", line)
	}
}
