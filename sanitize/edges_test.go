package sanitize_test

import (
	"encoding/base64"
	"regexp"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/sanitize"
)

// TestShapeSecretSplitAcrossDeltas: a secret-shaped token cut by a delta boundary
// anywhere after its literal (sk-, ghp_, eyJ, AKIA, xoxb-) leaves no piece in either
// delta, as text and as base64; the next delta of another stream, and deltas that
// merely start with a word, are left alone. A cut inside the literal itself is not
// caught (neither piece has anything a rule knows).
func TestShapeSecretSplitAcrossDeltas(t *testing.T) {
	g := newGen(11)
	secrets := []struct{ lit, value string }{
		{"sk-", "sk-proj-" + g.str(40, alnum)},
		{"ghp_", "ghp_" + g.str(36, alnum)},
		{"eyJ", "eyJ" + g.str(20, alnum) + ".eyJ" + g.str(20, alnum) + "." + g.str(20, alnum)},
		{"AKIA", "AKIA" + g.str(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")},
		{"xox", "xoxb-" + g.str(24, alnum)},
	}
	delta := func(item, s string) []byte {
		return []byte(`{"method":"item/commandExecution/outputDelta","params":{"threadId":"t","turnId":"u","itemId":"` + item + `","delta":` + q(s) + `}}`)
	}
	b64 := func(item, s string) []byte {
		return []byte(`{"method":"command/exec/outputDelta","params":{"processId":"` + item + `","stream":"stdout","deltaBase64":"` + base64.StdEncoding.EncodeToString([]byte(s)) + `"}}`)
	}
	// text is the delta's text, decoded from JSON or base64.
	text := func(out []byte) string {
		if d := gjson.GetBytes(out, "params.deltaBase64"); d.Exists() {
			b, _ := base64.StdEncoding.DecodeString(d.Str)
			return string(b)
		}
		return gjson.GetBytes(out, "params.delta").Str
	}
	placeholder := regexp.MustCompile(`^<redacted:[a-z-]+:[0-9a-f]{6}>$`)
	for _, sec := range secrets {
		for p := len(sec.lit); p < len(sec.value); p++ {
			head, tail := sec.value[:p], sec.value[p:]
			for name, msg := range map[string]func(string, string) []byte{"delta": delta, "deltaBase64": b64} {
				z, err := sanitize.New(sanitize.Options{})
				if err != nil {
					t.Fatal(err)
				}
				// After KEY=, and at the start of a line (in JSON, after the n of \n).
				for _, before := range []string{"$ cat .env\nKEY=", "$ cat key\n"} {
					o1, r1 := z.Frame(msg("call_1", before+head))
					o2, r2 := z.Frame(msg("call_1", tail+"\ndone\n"))
					t1, t2 := text(o1), text(o2)
					p1, ok1 := strings.CutPrefix(t1, before)
					p2, ok2 := strings.CutSuffix(t2, "\ndone\n")
					if !ok1 || !ok2 || !placeholder.MatchString(p1) || !placeholder.MatchString(p2) || len(r1) == 0 || len(r2) == 0 {
						t.Fatalf("%s %s after %q split at %d: want each piece replaced, and nothing else:\n%q\n%q", name, sec.lit, before, p, t1, t2)
					}
				}
			}
		}
	}
	// Nothing is open: a delta that starts with a word stays as it is; an open edge
	// belongs to its own stream only.
	z, _ := sanitize.New(sanitize.Options{})
	for _, d := range [][]byte{delta("a", "plain words at the end"), delta("a", "more_words and text"), delta("b", "ends with sk-proj-abc"), delta("a", "continues_here")} {
		if out, reds := z.Frame(d); string(out) != string(d) && !strings.Contains(string(d), "sk-proj") {
			t.Errorf("%s changed to %s (%v)", d, out, reds)
		}
	}
}
