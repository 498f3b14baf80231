package sanitize_test

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	corpus "github.com/codexrec/codexrec/internal/testing/secretcorpus"
	"github.com/codexrec/codexrec/sanitize"
)

// TestSplitThreeInsideToken cuts every generated secret into three deltas whose
// middle one lies wholly inside a token (the first delta sees the second, all one
// token, but not where the token ends), at seeded random cut points: nothing of the
// secret survives. The one exception is documented in docs/sanitize.md (Limits): a
// value of a fixed length with a fixed end (Azure's 86 characters and "==") found by
// its context alone.
func TestSplitThreeInsideToken(t *testing.T) {
	limit := map[string]bool{"azure-account-key": true}
	z, err := sanitize.New(sanitize.Options{Salt: "split3"})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(24, 3))
	q := func(v string) string { b, _ := json.Marshal(v); return string(b) }
	delta := func(v string) corpus.Frame {
		return corpus.Frame{Dir: "s2c", Line: `{"method":"item/commandExecution/outputDelta","params":{"itemId":"s3","delta":` + q(v) + `}}`}
	}
	seen := map[string]bool{}
	tried, limited := 0, 0
	for _, c := range corpus.GenCases(corpus.CommittedKeys()) {
		if c.Secret == nil || seen[c.Kind] || c.Placement == "cross-field" {
			continue // (a cross-field value is a secret only next to its command)
		}
		seen[c.Kind] = true
		text := c.Secret.Text
		for range 40 {
			a := r.IntN(len(text) + 1)
			b := a + 1 + r.IntN(8)
			if b > len(text) || strings.Trim(text[a:b], tokenChars) != "" {
				continue
			}
			z.ForgetStreams()
			fc := corpus.GenCase{Kind: c.Kind, Placement: "split-3-inside", Secret: c.Secret,
				Frames: []corpus.Frame{delta(text[:a]), delta(text[a:b]), delta(text[b:])}}
			data, lines := genRecording(t, z, []corpus.GenCase{fc})
			leak, _ := corpus.JudgeGen(fc, caseLines(splitLines(data), lines[0]))
			switch {
			case leak != "" && limit[c.Kind]:
				limited++
			case leak != "":
				t.Errorf("%s cut at %d, %d (middle %q): leaked %s", c.Kind, a, b, text[a:b], leak)
			default:
				tried++
			}
		}
	}
	z.ForgetStreams()
	t.Logf("%d cuts caught, %d left to the documented limit", tried, limited)
	if tried < 500 {
		t.Fatalf("only %d cuts tried", tried)
	}
}
