package sanitize

import (
	"bytes"
	"slices"
	"strings"

	"github.com/codexrec/codexrec/internal/jsonx"
)

// filter says which searches can match a text at all, decided with one pass of the
// prefilter automaton so that clean text never reaches a regular expression.
type filter struct {
	secrets []int // indices of known secrets with some encoding's prefix present
	rules   []*shapeRule
	keyword bool
	// keywordJSON: a keyword trigger that JSON structure itself produces ("apiKey":)
	// occurs; it counts only in text.
	keywordJSON bool
	// kwPos and kwJSONPos are the offsets just past each keyword trigger (the
	// separator is the byte before), in the coordinates of base.
	kwPos, kwJSONPos []int
	// ruleHits are the occurrences of shape rules' literals, glHits those of
	// gitleaks rules' keywords.
	ruleHits, glHits []hit
	pre              *prefilter
	base             int
	maps             []int
	fields           bool // a secret field's key, "env", "isSecret", "answers" or "Base64" occurs
	answers          bool // "isSecret" or "answers" occurs (see secretAnswersFor)
	// esc are the occurrences of the escape signs (patEscape), in the coordinates
	// of the text the filter was made for (see escapeSigns), but for "delta, whose
	// occurrence anywhere is delta.
	esc   []hit
	delta bool
}

func (f *filter) empty() bool {
	return len(f.secrets) == 0 && len(f.rules) == 0 && len(f.glHits) == 0 && !f.keyword && !f.keywordJSON && len(f.maps) == 0 && !f.fields
}

// clean reports whether nothing can match inside the text the filter was made for:
// empty but for the fields it saw (field rules read where a string sits, not what
// it holds, and "delta" is one of them when known secrets are searched).
func (f *filter) clean() bool {
	g := *f
	g.fields = false
	return g.empty()
}

// cleanButShortTokens reports, for the filter of one JSON string's raw content
// (within, ending at b[end], its closing quote), whether nothing can match inside it
// but for occurrences of rules' literals that their pre check rules out there for
// sure: the token from the literal on (tokenAtLeast) is broken, before it is long
// enough, by a byte of the string that is no word byte or dash. An escape breaks it
// the same way in the decoded text (its backslash here, a quote, control byte,
// backslash or slash there; \u escapes are the caller's to rule out), so the rule
// finds nothing in the text either. A token running to the string's end is not
// ruled out: the stream may continue it.
func (f *filter) cleanButShortTokens(b []byte, end int) bool {
	g := *f
	g.fields, g.rules = false, nil
	if !g.empty() {
		return false
	}
	for _, h := range f.ruleHits {
		p := &f.pre.pats[h.id]
		if p.kind != patRule {
			return false
		}
		r := shapeRules[p.idx]
		occ := h.end - len(p.lit)
		if r.minToken == 0 || occ < f.base || h.end > end || !tokenBroken(b[:end], occ, r.minToken) {
			return false
		}
	}
	return true
}

// tokenBroken reports whether b[occ:occ+n] holds a byte that is no word byte or
// dash (tokenAtLeast(n) fails at occ), b ending before that is not enough.
func tokenBroken(b []byte, occ, n int) bool {
	for k := occ; k < occ+n && k < len(b); k++ {
		if c := b[k]; !isWordByte(c) && c != '-' {
			return true
		}
	}
	return false
}

// contextual reports whether rules that read the text around a value (keyword
// rules, gitleaks' expressions) may match: those must run on decoded JSON strings.
func (f filter) contextual() bool { return f.keyword || len(f.glHits) > 0 }

// text is the filter for b searched as text rather than as a raw JSON line.
func (f filter) text() filter {
	f.keyword = f.keyword || f.keywordJSON
	f.kwPos = append(append([]int(nil), f.kwPos...), f.kwJSONPos...)
	return f
}

// within is the filter for b[start:end] of the raw JSON line b it was made for.
// Positions are in scan order, so the ones inside are a sub-slice (no copy).
func (f filter) within(start, end int) filter {
	f.base = start
	if len(f.esc) > 0 {
		f.esc = f.esc[hitsAfter(f.esc, start):hitsAfter(f.esc, end)]
	}
	if !f.keyword && len(f.ruleHits) == 0 && len(f.glHits) == 0 {
		return f
	}
	f.kwPos = f.kwPos[intsAfter(f.kwPos, start):intsAfter(f.kwPos, end)]
	f.keyword = len(f.kwPos) > 0
	f.ruleHits = f.ruleHits[hitsAfter(f.ruleHits, start):hitsAfter(f.ruleHits, end)]
	f.glHits = f.glHits[hitsAfter(f.glHits, start):hitsAfter(f.glHits, end)]
	return f
}

// intsAfter is the index of the first of the sorted xs greater than x (a binary
// search: within runs for every string of a frame).
func intsAfter(xs []int, x int) int {
	lo, hi := 0, len(xs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if xs[m] > x {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// hitsAfter is intsAfter for hits by their end.
func hitsAfter(hs []hit, x int) int {
	lo, hi := 0, len(hs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if hs[m].end > x {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// Prefilter patterns and what each stands for.
type patKind uint8

const (
	patRule    patKind = iota
	patKeyword         // a trigger of keywordSpans: kept with its positions
	patSecret
	patMap
	patField
	patGitleaks // a keyword of gitleaks rule idx: kept with its positions
	patSkip     // a literal of another view of the same automaton (prefilters)
	patEscape   // an escape sign (idx one of esc*): kept with its positions
)

type pattern struct {
	kind patKind
	idx  int
	lit  []byte // a shape rule's literal
	fold bool   // the literal matches case-insensitively
}

// prefilter is the compiled automaton and the meaning of its pattern ids.
type prefilter struct {
	m    *lazyMatcher
	pats []pattern
}

// prefixLen bounds the literal a known secret or a path contributes to the
// automaton: enough to be rare, and the exact search runs only when it occurs.
const prefixLen = 12

// views say which prefilters a literal is for (see prefilters).
type views uint8

const (
	forSan      views = 1 << iota // the sanitizer's own
	forGuardSan                   // the guard's sanitizer (no path maps)
	forGuard                      // the guard's scan
	forAll      = forSan | forGuardSan | forGuard
)

// prefilters are the sanitizer's, the guard's sanitizer's and the guard's
// prefilters: one automaton holding the literals of all three (most are the rules',
// which all three search for), read through a pattern table each, where the
// literals a view does not search for have kind patSkip. A session builds it once,
// not three times.
type prefilters struct{ san, guardSan, guard prefilter }

func (z *Sanitizer) buildPrefilters() *prefilters {
	var lits []string
	var pats []pattern
	var in []views
	add := func(l string, p pattern, v views) {
		lits = append(lits, l)
		pats = append(pats, p)
		in = append(in, v)
	}
	// addCut adds a known secret's or a path's literal: its first prefixLen bytes
	// are rare enough, and the exact search runs only when they occur.
	addCut := func(l string, k patKind, i int, v views) {
		if len(l) > prefixLen {
			l = l[:prefixLen]
		}
		add(l, pattern{kind: k, idx: i}, v)
	}
	for i, r := range shapeRules {
		for _, l := range r.lits {
			add(l, pattern{kind: patRule, idx: i, lit: []byte(l)}, forAll)
		}
		for _, l := range r.lower {
			add(l, pattern{kind: patRule, idx: i, lit: []byte(l), fold: true}, forAll)
		}
	}
	var gl []*glRule
	if z.gitleaks {
		gl = gitleaksRules()
	}
	for i, r := range gl {
		for _, k := range r.keywords {
			add(k, pattern{kind: patGitleaks, idx: i, lit: []byte(k), fold: true}, forAll)
		}
	}
	for _, k := range keywordTriggers {
		addCut(k, patKeyword, 0, forAll)
	}
	for _, e := range escapeSigns {
		add(e.lit, pattern{kind: patEscape, idx: e.sign, lit: []byte(e.lit)}, forAll)
	}
	for _, k := range keywordJSONTriggers {
		addCut(k, patKeyword, 0, forAll)
	}
	for i, forms := range z.needles {
		for _, n := range forms {
			addCut(string(n), patSecret, i, forAll)
		}
		for _, n := range z.guards[i] {
			addCut(string(n), patSecret, i, forGuard)
		}
	}
	// Fields ending in "Base64" are decoded and searched: their raw text says nothing.
	addCut(`Base64"`, patField, 0, forAll)
	sanitizers := forSan | forGuardSan
	if len(z.secrets) > 0 {
		// Streamed deltas may hold a piece of a known secret at an edge.
		addCut(`"delta"`, patField, 0, sanitizers)
	}
	for i, m := range z.maps {
		addCut(m.From, patMap, i, forSan)
	}
	for _, f := range secretFields {
		addCut(`"`+f.key+`"`, patField, 0, sanitizers)
	}
	addCut(`"env"`, patField, 0, sanitizers)
	for _, k := range []string{`"isSecret"`, `"answers"`} {
		addCut(k, patField, 1, sanitizers)
	}
	starts := make([]bool, len(pats))
	for i, p := range pats {
		starts[i] = p.kind == patRule && atWordStarts(shapeRules[p.idx], lits[i])
	}
	m := newLazyMatcher(lits, starts)
	view := func(v views) prefilter {
		own := slices.Clone(pats)
		for i := range own {
			if in[i]&v == 0 {
				own[i] = pattern{kind: patSkip}
			}
		}
		return prefilter{m, own}
	}
	return &prefilters{san: view(forSan), guardSan: view(forGuardSan), guard: view(forGuard)}
}

// atWordStarts says whether the automaton finds rule r's literal l at word starts
// only (newMatcher): a literal of two bytes or fewer, from a word byte, of a rule
// whose matches begin at a word start (ruleCanStart rules the others out). Those
// few bytes occur inside words all the time; longer literals rarely do, and are
// found anywhere.
func atWordStarts(r *shapeRule, l string) bool {
	return r.word && r.run && len(l) <= 2 && l != "" && isWordByte(l[0])
}

// prefilter is z's prefilter for the sanitizer or for the guard, built the first
// time a run needs it (a run that checks nothing builds nothing); a guard's
// sanitizer shares those its preFrom built for all its guards.
func (z *Sanitizer) prefilter(guard bool) *prefilter {
	if guard {
		z.guardPreOnce.Do(func() { z.guardPre = z.sharedPrefilter(true) })
		return &z.guardPre
	}
	z.sanPreOnce.Do(func() { z.sanPre = z.sharedPrefilter(false) })
	return &z.sanPre
}

// sharedPrefilter is z's view of the prefilters of z, or of its preFrom when it
// is a guard's sanitizer (which has no path maps).
func (z *Sanitizer) sharedPrefilter(guard bool) prefilter {
	src := z
	if z.preFrom != nil {
		src = z.preFrom
	}
	src.presOnce.Do(func() { src.pres = src.buildPrefilters() })
	switch {
	case guard:
		return src.pres.guard
	case z.preFrom != nil:
		return src.pres.guardSan
	default:
		return src.pres.san
	}
}

// filterFor runs the prefilter on b. The result is for a raw JSON line: call text()
// on it when b is text (or a decoded string).
func (z *Sanitizer) filterFor(b []byte, guard bool) filter {
	return z.filterForLine(b, guard, false, false)
}

// filterForLine is filterFor of a recording's line whose automaton hits a guard's
// feed leaves for its scan, or its scan takes (see linehits.go).
func (z *Sanitizer) filterForLine(b []byte, guard, leave, take bool) filter {
	pre := z.prefilter(guard)
	f := filter{pre: pre}
	var buf [64]hit
	any, hits := z.scanLineHits(pre.m, b, buf[:0], leave, take)
	if !any {
		return f
	}
	// The hits name what occurred, so the (long) table of patterns is never walked.
	// The positions kept are counted first, to be stored in one allocation each.
	var nh, nk, ne int
	for _, h := range hits {
		switch pre.pats[h.id].kind {
		case patRule, patGitleaks:
			nh++
		case patKeyword:
			nk++
		case patEscape:
			if pre.pats[h.id].idx != escDelta {
				ne++
			}
		}
	}
	if ne > 0 {
		f.esc = make([]hit, 0, ne)
	}
	var hs []hit
	if nh > 0 {
		hs = make([]hit, nh)
	}
	var ks []int
	if nk > 0 {
		ks = make([]int, nk)
	}
	// Rule hits fill hs from the front, gitleaks' from the back (reversed at the
	// end); keyword triggers likewise in ks, the structural ones from the back.
	nr, ng, nkw, nkj := 0, 0, 0, 0
	var rules uint64 // shape rules already in f.rules, by index
	for _, h := range hits {
		p := &pre.pats[h.id]
		switch p.kind {
		case patRule:
			if !ruleCanStart(shapeRules[p.idx], p, b, h.end-len(p.lit)) {
				continue
			}
			hs[nr] = h
			nr++
			if rules&(1<<p.idx) == 0 {
				rules |= 1 << p.idx
				f.rules = append(f.rules, shapeRules[p.idx])
			}
		case patGitleaks:
			if !glCanStart(gitleaksRules()[p.idx], b, h.end-len(p.lit)) {
				continue
			}
			ng++
			hs[nh-ng] = h
		case patKeyword:
			// The bytes before a keyword's separator tell the structural triggers
			// ("key": "key" :) from the others.
			if structural(b, h.end-1) {
				nkj++
				ks[nk-nkj] = h.end
			} else {
				ks[nkw] = h.end
				nkw++
			}
		case patSecret:
			if !slices.Contains(f.secrets, p.idx) {
				f.secrets = append(f.secrets, p.idx)
			}
		case patMap:
			if !slices.Contains(f.maps, p.idx) {
				f.maps = append(f.maps, p.idx)
			}
		case patField:
			f.fields = true
			f.answers = f.answers || p.idx == 1
		case patEscape:
			if p.idx == escDelta {
				f.delta = f.delta || string(b[h.end-len(p.lit):h.end]) == `"delta`
			} else {
				f.esc = append(f.esc, h)
			}
		}
	}
	if nr > 0 {
		f.ruleHits = hs[:nr:nr]
	}
	if ng > 0 {
		f.glHits = hs[nh-ng:]
		slices.Reverse(f.glHits)
	}
	if nkw > 0 {
		f.kwPos = ks[:nkw:nkw]
	}
	if nkj > 0 {
		f.kwJSONPos = ks[nk-nkj:]
		slices.Reverse(f.kwJSONPos)
	}
	f.keyword, f.keywordJSON = nkw > 0, nkj > 0
	return f
}

// hiddenEscapes reports whether JSON text holds escapes that can spell a literal
// differently from the prefilter's view (\uXXXX, \/): such text is searched decoded.
func hiddenEscapes(b []byte) bool {
	for i := 0; ; {
		k := bytes.IndexByte(b[i:], '\\')
		if k < 0 || i+k+1 >= len(b) {
			return false
		}
		i += k + 1
		switch b[i] {
		case 'u', '/':
			return true
		}
		i++
	}
}

// structural reports whether the separator at b[sep] follows a closing quote that is
// JSON's own (not an escaped \" inside a string).
func structural(b []byte, sep int) bool {
	i := sep - 1
	for i >= 0 && (b[i] == ' ' || b[i] == '\t') {
		i--
	}
	if i < 0 || b[i] != '"' {
		return false
	}
	return jsonx.Backslashes(b, i, 0)%2 == 0
}

// ruleCanStart rules out, before any expression runs, an occurrence at b[occ:] of a
// shape rule's literal that the prefilter (which ignores case) found: spelled with
// other cases, or not at a word start where the rule's matches must begin there.
func ruleCanStart(r *shapeRule, p *pattern, b []byte, occ int) bool {
	if occ < 0 || occ+len(p.lit) > len(b) {
		return true // cannot tell: let the search decide
	}
	if !p.fold && string(b[occ:occ+len(p.lit)]) != string(p.lit) {
		return false
	}
	return !(r.word && r.run) || wordStart(b, occ)
}

// glCanStart is ruleCanStart for a gitleaks rule whose matches start with one of its
// keywords.
func glCanStart(r *glRule, b []byte, occ int) bool {
	if len(r.prefixes) == 0 || occ < 0 {
		return true
	}
	for _, pr := range r.prefixes {
		if len(b)-occ < len(pr) {
			continue
		}
		lit := b[occ : occ+len(pr)]
		if r.prefixFold && equalFold(lit, strings.ToLower(pr)) || !r.prefixFold && string(lit) == pr {
			return !r.word || wordStart(b, occ)
		}
	}
	return false
}
