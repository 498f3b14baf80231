package sanitize

import (
	"bytes"

	"github.com/codexrec/codexrec/internal/jsonx"
)

// A line of command output holds an escape every few dozen bytes (\t, \n), and the
// sanitizer asks several questions of its escapes: does a \u or \/ spell some literal
// differently (hiddenEscapes), how many escapes does a huge delta hold and does a
// \t stand before a keyword's separator (escapesAndTabSeps), does a percent escape
// hide a secret (hasPercentEscape). Each was a pass over the text, stopping at every
// backslash. Instead, the prefilter's automaton, which reads every byte of the line
// anyway, also finds the few literals these questions turn on (the escape signs),
// and the filter answers them from those occurrences: no pass of their own. The
// answers are exactly the functions' (escsigns_internal_test.go compares them).

// Escape signs, the idx of a patEscape pattern.
const (
	escHidden  = iota // \u or \/ (hiddenEscapes)
	escTabSep         // \t: or \t= (escapesAndTabSeps' tab separator)
	escDouble         // \\: an escaped backslash, or a backslash escaping another escape's
	escPercent        // % and a hex digit (hasPercentEscape)
	escDelta          // "delta: a member that may be a streamed delta (frameWith)
)

// escapeSigns are the literals of the escape signs. The automaton ignores ASCII case
// (\U, \T: and %A are found too): each occurrence is checked byte for byte.
var escapeSigns = func() []struct {
	lit  string
	sign int
} {
	signs := []struct {
		lit  string
		sign int
	}{{`\u`, escHidden}, {`\/`, escHidden}, {`\t:`, escTabSep}, {`\t=`, escTabSep}, {`\\`, escDouble}, {`"delta`, escDelta}}
	for _, c := range "0123456789abcdef" {
		signs = append(signs, struct {
			lit  string
			sign int
		}{"%" + string(c), escPercent})
	}
	return signs
}()

// signs calls yield with the start of each occurrence of escape sign sign that lies
// within b[lo:hi], b being the text f was made for, in order, until it returns false.
func (f *filter) signs(sign int, b []byte, lo, hi int, yield func(start int) bool) {
	for _, h := range f.esc[hitsAfter(f.esc, lo):] {
		if h.end > hi {
			return
		}
		p := &f.pre.pats[h.id]
		if p.idx != sign {
			continue
		}
		s := h.end - len(p.lit)
		if s < lo || s < 0 || h.end > len(b) {
			continue
		}
		if !yield(s) {
			return
		}
	}
}

// hiddenIn is hiddenEscapes(b[lo:hi]).
func (f *filter) hiddenIn(b []byte, lo, hi int) bool {
	found := false
	f.signs(escHidden, b, lo, hi, func(s int) bool {
		if b[s] != '\\' || b[s+1] != 'u' && b[s+1] != '/' {
			return true // \U
		}
		// It is an escape when the backslashes before it (back to lo, where
		// hiddenEscapes starts pairing them) are pairs.
		found = jsonx.Backslashes(b, s, lo)%2 == 0
		return !found
	})
	return found
}

// percentIn is hasPercentEscape(b[lo:hi]).
func (f *filter) percentIn(b []byte, lo, hi int) bool {
	found := false
	f.signs(escPercent, b, lo, hi, func(s int) bool {
		if s+2 >= hi {
			return false // hasPercentEscape stops there
		}
		v, ok := unhex2(b[s+1], b[s+2])
		found = ok && !isAlnum(v)
		return !found
	})
	return found
}

// holdsDelta is bytes.Contains(b, []byte(`"delta`)), b being the text the filter
// was made for.
func (f *filter) holdsDelta() bool { return f.delta }

// quietIn reports whether a search of the raw JSON string content b[lo:hi] (find,
// as jsonFrame's default case runs it) can find nothing for what the prefilter saw:
// no known secret's prefix and no path anywhere in the line, no literal of a rule or
// keyword within the string, and no percent escape in it.
func (f *filter) quietIn(b []byte, lo, hi int) bool {
	if len(f.secrets) > 0 || len(f.maps) > 0 {
		return false
	}
	if intsAfter(f.kwPos, lo) != intsAfter(f.kwPos, hi) ||
		hitsAfter(f.ruleHits, lo) != hitsAfter(f.ruleHits, hi) ||
		hitsAfter(f.glHits, lo) != hitsAfter(f.glHits, hi) {
		return false
	}
	return !f.percentIn(b, lo, hi)
}

// escapesIn is escapesAndTabSeps(b[lo:hi]): the count of escapes is that of the
// backslashes when no two are adjacent.
func (f *filter) escapesIn(b []byte, lo, hi int) (n int, tabSep bool) {
	double := false
	f.signs(escDouble, b, lo, hi, func(int) bool {
		double = true
		return false
	})
	if double {
		return escapesAndTabSeps(b[lo:hi])
	}
	f.signs(escTabSep, b, lo, hi, func(s int) bool {
		tabSep = b[s] == '\\' && b[s+1] == 't'
		return !tabSep
	})
	return bytes.Count(b[lo:hi], []byte{'\\'}), tabSep
}
