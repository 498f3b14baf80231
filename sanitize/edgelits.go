package sanitize

import "sync"

// edgeLits are the literals shapeEdgeSpans looks for in the token that ends a delta:
// the run rules' literals, then (with gitleaks' rules) gitleaks' prefixes of three
// bytes or more, in the order its search visits them. One pass of their automaton
// over the token finds them all, instead of one substring search per literal.
type edgeLits struct {
	m    *matcher
	pats []edgePat
}

type edgePat struct {
	lit  string
	rule string
	// shape: a run rule's literal, whose first occurrence at a word start counts;
	// else a gitleaks prefix, whose first occurrence (ignoring ASCII case when fold)
	// counts only when it is at a word start.
	shape, fold bool
}

var edgeLitsOwn, edgeLitsAll = sync.OnceValue(func() *edgeLits { return newEdgeLits(false) }),
	sync.OnceValue(func() *edgeLits { return newEdgeLits(true) })

func newEdgeLits(gitleaks bool) *edgeLits {
	e := &edgeLits{}
	for _, r := range shapeRules {
		if r.run {
			for _, lit := range r.lits {
				e.pats = append(e.pats, edgePat{lit: lit, rule: r.name, shape: true})
			}
		}
	}
	if gitleaks {
		for _, r := range gitleaksRules() {
			for _, lit := range r.prefixes {
				if len(lit) >= 3 {
					e.pats = append(e.pats, edgePat{lit: lit, rule: r.id, fold: r.prefixFold})
				}
			}
		}
	}
	lits := make([]string, len(e.pats))
	for i, p := range e.pats {
		lits[i] = p.lit
	}
	e.m = newMatcher(lits, nil)
	return e
}

// edgeLiteral returns where in tail the secret-shaped token at its end starts (at
// or after start) and the rule whose literal starts it, or -1: the earliest
// literal occurrence that counts, the first literal in search order on a tie. An
// occurrence at skip is never the start (the token a previous delta began).
func (z *Sanitizer) edgeLiteral(tail []byte, start, skip int) (best int, rule string) {
	e := edgeLitsOwn()
	if z.gitleaks {
		e = edgeLitsAll()
	}
	var buf [32]hit
	_, hits := e.m.scan(tail[start:], buf[:0])
	// done[id]: the pattern's first occurrence that counts was seen (or, for a
	// prefix, its first occurrence at all).
	var doneBuf [512]bool
	done := doneBuf[:]
	if len(e.pats) > len(doneBuf) {
		done = make([]bool, len(e.pats))
	}
	best, bestID := -1, -1
	for _, h := range hits {
		if done[h.id] {
			continue
		}
		p := &e.pats[h.id]
		i := start + h.end - len(p.lit)
		if !p.fold && string(tail[i:i+len(p.lit)]) != p.lit {
			continue // the automaton ignores case; this literal does not
		}
		ok := wordStart(tail, i) && i != skip
		if p.shape && !ok {
			continue // a later occurrence may count
		}
		done[h.id] = true
		if ok && (best < 0 || i < best || i == best && h.id < bestID) {
			best, bestID = i, h.id
		}
	}
	if best < 0 {
		return -1, ""
	}
	return best, e.pats[bestID].rule
}
