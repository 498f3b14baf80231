package sanitize_test

import (
	"strings"
	"testing"

	corpus "github.com/codexrec/codexrec/internal/testing/secretcorpus"
	"github.com/codexrec/codexrec/sanitize"
)

// TestHugeDeltaJunctions: a huge clean delta (read at its ends only) next to a small
// one, a secret cut between them at every byte, in either order, with and without
// the next frame known, is sanitized as the same delta with a short filler (decoded
// whole) is: the same redactions, the filler kept, and with the next frame known no
// third of the secret left.
func TestHugeDeltaJunctions(t *testing.T) {
	const known = "fake-access-token-0123456789abcdef"
	withKnown, err := sanitize.New(sanitize.Options{Salt: "huge", Secrets: []sanitize.Secret{{Name: "TOKEN", Value: known}}})
	if err != nil {
		t.Fatal(err)
	}
	shapesOnly, err := sanitize.New(sanitize.Options{Salt: "huge"})
	if err != nil {
		t.Fatal(err)
	}
	line := "ok  \tgithub.com/example/project/internal/pkg042\t0.042s\tcoverage: 42.1% of statements\n"
	short, huge := strings.Repeat(line, 20), strings.Repeat(line, 1200)
	var s corpus.Secret
	for _, c := range corpus.Secrets() {
		if c.Provider == "openai-project" {
			s = c
		}
	}
	run := func(z *sanitize.Sanitizer, lines []string, lookahead bool) string {
		if lookahead {
			return strings.Join(deltaTexts(t, sanitizeStream(z, lines)), "|")
		}
		z.ForgetStreams()
		var out [][]byte
		for _, l := range lines {
			o, _ := z.FrameClassified([]byte(l), true)
			out = append(out, o)
		}
		return strings.Join(deltaTexts(t, out), "|")
	}
	for _, c := range []struct {
		z           *sanitize.Sanitizer
		value, body string
	}{{shapesOnly, s.Value, s.Body}, {withKnown, s.Value, s.Body}, {withKnown, known, known}} {
		text := "export DEPLOY=" + c.value + "\ndone\n"
		for k := 1; k < len(text); k++ {
			for _, hugeFirst := range []bool{true, false} {
				for _, lookahead := range []bool{true, false} {
					var without []string // the texts with the filler taken out
					for _, filler := range []string{short, huge} {
						a, b := text[:k], text[k:]
						if hugeFirst {
							a = filler + a
						} else {
							b += filler
						}
						all := run(c.z, corpus.SplitAt(a+b, "item-huge", len(a)), lookahead)
						// Without the next frame, a cut right after a token's first byte
						// is beyond the edge heuristics, whatever the delta's size.
						if p := leftover(c.body, strings.Split(all, "|")); p != "" && lookahead {
							t.Fatalf("cut at %d (huge first %v, lookahead %v): %q survives", k, hugeFirst, lookahead, corpus.Mask(p))
						}
						if !strings.Contains(all, filler) {
							t.Fatalf("cut at %d (huge first %v, lookahead %v): the clean text changed", k, hugeFirst, lookahead)
						}
						without = append(without, strings.Replace(all, filler, "", 1))
					}
					if without[0] != without[1] {
						t.Fatalf("cut at %d (huge first %v, lookahead %v): a huge delta is sanitized otherwise than a short one:\n%q\n%q", k, hugeFirst, lookahead, without[1], without[0])
					}
				}
			}
		}
	}
}
