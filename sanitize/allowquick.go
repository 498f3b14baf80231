package sanitize

import (
	"regexp/syntax"
	"unicode/utf8"
)

// allowQuick returns, for an allowlist expression, a test that decides most inputs
// without running the expression (decided false: run it). gitleaks' allowlists run
// on every match found, so on secret-dense text they cost as much as the rules:
// an expression anchored at the start by a literal byte cannot match a target that
// does not begin with it, and gitleaks' global "true, false or null" is read by
// hand on ASCII targets. Exactness is tested against the expressions
// (TestAllowQuick).
func allowQuick(src string) func(target []byte) (match, decided bool) {
	if src == `(?i)^true|false|null$` {
		return func(t []byte) (bool, bool) {
			if !asciiOnly(t) {
				return false, false // (?i) folds non-ASCII runes too (ſ is s)
			}
			return len(t) >= 4 && equalFold(t[:4], "true") ||
				len(t) >= 4 && equalFold(t[len(t)-4:], "null") ||
				containsFold(t, "false"), true
		}
	}
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil || re.Op != syntax.OpConcat || len(re.Sub) < 2 {
		return nil
	}
	first, lit := re.Sub[0], re.Sub[1]
	if first.Op != syntax.OpBeginText || lit.Op != syntax.OpLiteral || lit.Flags&syntax.FoldCase != 0 ||
		len(lit.Rune) == 0 || lit.Rune[0] >= utf8.RuneSelf {
		return nil
	}
	c := byte(lit.Rune[0])
	return func(t []byte) (bool, bool) {
		if len(t) == 0 || t[0] != c {
			return false, true
		}
		return false, false
	}
}

func asciiOnly(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// containsFold reports whether b holds lower (lower case ASCII letters) in any case.
func containsFold(b []byte, lower string) bool {
	for i := 0; i+len(lower) <= len(b); i++ {
		if b[i]|0x20 == lower[0] && equalFold(b[i:i+len(lower)], lower) {
			return true
		}
	}
	return false
}
