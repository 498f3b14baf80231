package main

import (
	"regexp/syntax"
	"strings"
)

// literalPrefixes finds the literals every match of the regex starts with (one per
// branch of a leading alternation), when each begins with one of the keywords (see
// rule.Prefixes). It reads the parsed expression: leading \b and groups are looked
// through.
func literalPrefixes(re string, keywords []string) (prefixes []string, fold, word bool) {
	t, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return nil, false, false
	}
	// lits returns the literal prefix of each way t can start, or nil if one has none.
	var lits func(t *syntax.Regexp) []string
	folds := map[bool]bool{}
	lits = func(t *syntax.Regexp) []string {
		switch t.Op {
		case syntax.OpConcat:
			var out []string
			for i, s := range t.Sub {
				if s.Op == syntax.OpWordBoundary && i == 0 {
					word = true
					continue
				}
				out = lits(s)
				if out == nil {
					return nil
				}
				// Extend with a following literal: the branch's certain prefix.
				if s.Op == syntax.OpLiteral && i+1 < len(t.Sub) && t.Sub[i+1].Op == syntax.OpLiteral && (t.Sub[i+1].Flags&syntax.FoldCase != 0) == (s.Flags&syntax.FoldCase != 0) {
					out = []string{out[0] + string(t.Sub[i+1].Rune)}
				}
				return out
			}
			return nil
		case syntax.OpCapture:
			return lits(t.Sub[0])
		case syntax.OpLiteral:
			folds[t.Flags&syntax.FoldCase != 0] = true
			return []string{string(t.Rune)}
		case syntax.OpAlternate:
			var out []string
			for _, s := range t.Sub {
				l := lits(s)
				if l == nil {
					return nil
				}
				out = append(out, l...)
			}
			return out
		}
		return nil
	}
	ls := lits(t)
	if ls == nil || len(folds) != 1 {
		return nil, false, false
	}
	fold = folds[true]
	for _, l := range ls {
		ok := false
		for _, k := range keywords {
			if len(k) > 0 && len(l) >= len(k) && strings.EqualFold(l[:len(k)], k) {
				prefixes = append(prefixes, l[:len(k)])
				ok = true
				break
			}
		}
		if !ok {
			return nil, false, false
		}
	}
	return prefixes, fold, word
}
