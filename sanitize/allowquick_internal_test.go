package sanitize

import (
	"math/rand/v2"
	"testing"

	corpus "github.com/codexrec/codexrec/internal/testing/secretcorpus"
)

// TestAllowQuick checks that the allowlists' quick tests decide exactly as their
// expressions, on the generated corpus's secrets and their pieces, near misses,
// the values the expressions are written for, and random strings.
func TestAllowQuick(t *testing.T) {
	targets := []string{"", "true", "TRUE", "trueish", "xfalsex", "FaLsE", "fals", "xnull", "NULL", "nul",
		"fal\u017fe", "tru\u00e9", "aaaa", "AAAA", "****", "....", "$1", "${12}", "$FOO", "${foo}", "{{ a.b }}",
		"${{ secrets.X }}", "%FOO%", "%s", "{1}", "@FOO@", "/Users/me/x", "/tmp/a b", "/etc/x", "{", "$", "/", "@", "%"}
	for _, c := range corpus.GenCases(corpus.CommittedKeys()) {
		if c.Secret != nil {
			targets = append(targets, c.Secret.Text)
			targets = append(targets, c.Secret.Pieces...)
		}
		targets = append(targets, c.Keep)
	}
	r := rand.New(rand.NewPCG(1, 2))
	const alpha = "aeflnrstuTRUEFALSNUL$%{}@/.*_ 0123456789\u017f"
	for range 20000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = alpha[r.IntN(len(alpha))]
		}
		targets = append(targets, string(b))
	}
	lists := []glAllow{gitleaksGlobal()}
	for _, rule := range gitleaksRules() {
		lists = append(lists, rule.allow...)
	}
	quick := 0
	for _, a := range lists {
		for i, re := range a.re {
			q := a.quick[i]
			if q == nil {
				continue
			}
			quick++
			for _, s := range targets {
				if m, ok := q([]byte(s)); ok && m != re.MatchString(s) {
					t.Errorf("%s on %q: quick says %v, the expression %v", re, s, m, !m)
				}
			}
		}
	}
	if quick < len(gitleaksGlobal().re)-1 {
		t.Errorf("only %d expressions have a quick test", quick)
	}
}
