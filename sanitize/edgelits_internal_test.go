package sanitize

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// edgeLiteralRef is edgeLiteral as one substring search per literal: the run rules'
// literals (the first occurrence at a word start), then gitleaks' prefixes (the first
// occurrence, counted when at a word start).
func edgeLiteralRef(gitleaks bool, tail []byte, start, skip int) (int, string) {
	best, bestRule := -1, ""
	for _, r := range shapeRules {
		if !r.run {
			continue
		}
		for _, lit := range r.lits {
			for from := start; from < len(tail); {
				j := bytes.Index(tail[from:], []byte(lit))
				if j < 0 {
					break
				}
				i := from + j
				from = i + 1
				if !wordStart(tail, i) || i == skip {
					continue
				}
				if best < 0 || i < best {
					best, bestRule = i, r.name
				}
				break
			}
		}
	}
	if gitleaks && start < len(tail) {
		low := bytes.ToLower(tail[start:])
		for _, r := range gitleaksRules() {
			for _, lit := range r.prefixes {
				if len(lit) < 3 {
					continue
				}
				i := bytes.Index(tail[start:], []byte(lit))
				if r.prefixFold {
					i = bytes.Index(low, bytes.ToLower([]byte(lit)))
				}
				if i >= 0 {
					i += start
					if wordStart(tail, i) && i != skip && (best < 0 || i < best) {
						best, bestRule = i, r.id
					}
				}
			}
		}
	}
	return best, bestRule
}

// TestEdgeLiteral: one pass of the edge literals' automaton picks the token start and
// rule that a search per literal picks, on tokens built from the literals, their
// case variants and separators.
func TestEdgeLiteral(t *testing.T) {
	var parts []string
	for _, p := range edgeLitsAll().pats {
		parts = append(parts, p.lit, strings.ToUpper(p.lit), p.lit[:len(p.lit)-1])
	}
	parts = append(parts, "_", "-", ".", "=", "/", "x", "Q9", "KEY=", "+")
	r := rand.New(rand.NewPCG(7, 24))
	for _, gl := range []bool{false, true} {
		z := &Sanitizer{gitleaks: gl}
		for range 20000 {
			var b strings.Builder
			for n := 1 + r.IntN(6); n > 0; n-- {
				b.WriteString(parts[r.IntN(len(parts))])
			}
			tail := []byte(b.String())
			start := r.IntN(len(tail) + 1)
			skip := -1
			if r.IntN(3) == 0 {
				skip = start + r.IntN(len(tail)-start+1)
			}
			gb, gr := z.edgeLiteral(tail, start, skip)
			wb, wr := edgeLiteralRef(gl, tail, start, skip)
			if gb != wb || gr != wr {
				t.Fatalf("gitleaks %v, %q from %d skipping %d: got %d %s, want %d %s", gl, tail, start, skip, gb, gr, wb, wr)
			}
		}
	}
}
