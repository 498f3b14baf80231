package record

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
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

// TestFrameEnvelope: a frame entry's envelope is every member but its message ("msg",
// and "raw" beside it); a frame kept as raw text or base64, and any other entry, has
// none (it is checked whole).
func TestFrameEnvelope(t *testing.T) {
	for _, c := range []struct{ line, env string }{
		{`{"type":"frame","seq":1,"t":0.1,"dir":"s2c","kind":"notification","method":"m","msg":{"method":"m"}}`,
			`{"type":"frame","seq":1,"t":0.1,"dir":"s2c","kind":"notification","method":"m"}`},
		{`{"type":"frame","seq":2,"t":0.1,"dir":"c2s","kind":"request","method":"a,\"msg\":b","id":7,"raw":" {\"id\":7} ","msg":{"id":7}}`,
			`{"type":"frame","seq":2,"t":0.1,"dir":"c2s","kind":"request","method":"a,\"msg\":b","id":7}`},
		{`{"type":"frame","seq":3,"t":0.1,"dir":"stderr","raw":"x,\"msg\":{}"}`, ""},
		{`{"type":"frame","seq":4,"t":0.1,"dir":"s2c","kind":"raw","rawBase64":"/w=="}`, ""},
		{`{"type":"finding","seq":4,"t":0.1,"reason":"r","msg":{}}`, ""},
	} {
		env, ok := frameEnvelope(nil, []byte(c.line))
		if ok != (c.env != "") || string(env) != c.env {
			t.Errorf("frameEnvelope(%s) = %s, %v; want %s", c.line, env, ok, c.env)
		}
		if ok && !json.Valid(env) {
			t.Errorf("envelope of %s is not JSON: %s", c.line, env)
		}
	}
}

// TestFollowerTrust: following a file whose frames the guard's own sanitizer wrote,
// the follower checks each frame's envelope and no message, so a frame longer than
// it follows needs no reading of the file at the end; a secret in an envelope, or in
// a message when the follower does not trust the frames, still makes it ask for one.
func TestFollowerTrust(t *testing.T) {
	z, err := sanitize.New(sanitize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const key = "sk-proj-abcdefghij0123456789ABCDEFGHIJ"
	frame := func(method, text string) string {
		return `{"type":"frame","seq":1,"t":0.1,"dir":"s2c","kind":"notification","method":"` + method +
			`","msg":{"method":"` + method + `","params":{"text":"` + text + `"}}}` + "\n"
	}
	huge := strings.Repeat("a", 2*maxFollowed)
	for _, c := range []struct {
		name, body string
		trust      bool
		clean      bool
	}{
		{"huge trusted", frame("m", huge), true, true},
		{"huge untrusted", frame("m", huge), false, false},
		{"secret in a trusted message", frame("m", key), true, true},
		{"secret in an untrusted message", frame("m", key), false, false},
		{"secret in a trusted envelope", frame(key, "x"), true, false},
		{"secret in a huge frame's envelope", frame(key, huge), true, false},
		{"secret in an annotation", frame("m", "x") + `{"type":"finding","seq":1,"t":0.1,"reason":"` + key + `"}` + "\n", true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.jsonl")
			data := `{"type":"header","format":1}` + "\n" + c.body
			if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
			gf := followGuard(z, path, c.trust)
			if gf == nil {
				t.Fatal("no follower")
			}
			gf.written(int64(len(data)))
			if got := gf.finish(); got != c.clean {
				t.Errorf("clean = %v, want %v", got, c.clean)
			}
		})
	}
}
