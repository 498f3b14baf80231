package sanitize

import (
	"bytes"
	"math"
	"sort"
)

// span is a piece of searched text to replace: a secret (rule set) or a path (rule
// empty, repl the map's placeholder).
type span struct {
	start, end int
	rule       string
	repl       string
}

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
	// ruleHits are the occurrences of shape rules' literals.
	ruleHits []hit
	pre      *prefilter
	base     int
	maps     []int
	fields   bool // a secret field's key, "env", "isSecret", "answers" or "Base64" occurs
}

func (f *filter) empty() bool {
	return len(f.secrets) == 0 && len(f.rules) == 0 && !f.keyword && !f.keywordJSON && len(f.maps) == 0 && !f.fields
}

// text is the filter for b searched as text rather than as a raw JSON line.
func (f filter) text() filter {
	f.keyword = f.keyword || f.keywordJSON
	f.kwPos = append(append([]int(nil), f.kwPos...), f.kwJSONPos...)
	return f
}

// within is the filter for b[start:end] of the b it was made for.
func (f filter) within(start, end int) filter {
	if !f.keyword && len(f.ruleHits) == 0 {
		f.base = start
		return f
	}
	var pos []int
	for _, p := range f.kwPos {
		if p > start && p <= end {
			pos = append(pos, p)
		}
	}
	var hits []hit
	for _, h := range f.ruleHits {
		if h.end > start && h.end <= end {
			hits = append(hits, h)
		}
	}
	f.kwPos, f.ruleHits, f.base = pos, hits, start
	f.keyword = len(pos) > 0
	return f
}

// Prefilter patterns and what each stands for.
type patKind uint8

const (
	patRule    patKind = iota
	patKeyword         // a trigger of keywordSpans: kept with its positions
	patSecret
	patMap
	patField
)

type pattern struct {
	kind patKind
	idx  int
	lit  []byte // a shape rule's literal
	fold bool   // the literal matches case-insensitively
}

// prefilter is the compiled automaton and the meaning of its pattern ids.
type prefilter struct {
	m     *matcher
	pats  []pattern
	track []bool // patterns whose positions are kept (keyword triggers)
}

// prefixLen bounds the literal a known secret or a path contributes to the
// automaton: enough to be rare, and the exact search runs only when it occurs.
const prefixLen = 12

func (z *Sanitizer) buildPrefilters() {
	build := func(guard bool) prefilter {
		var lits []string
		var pats []pattern
		add := func(l string, k patKind, i int) {
			if len(l) > prefixLen {
				l = l[:prefixLen]
			}
			lits = append(lits, l)
			pats = append(pats, pattern{kind: k, idx: i})
		}
		for i, r := range shapeRules {
			for _, l := range r.lits {
				lits = append(lits, l)
				pats = append(pats, pattern{kind: patRule, idx: i, lit: []byte(l)})
			}
			for _, l := range r.lower {
				lits = append(lits, l)
				pats = append(pats, pattern{kind: patRule, idx: i, lit: []byte(l), fold: true})
			}
		}
		for _, k := range keywordTriggers {
			add(k, patKeyword, 0)
		}
		for _, k := range keywordJSONTriggers {
			add(k, patKeyword, 0)
		}
		for i, forms := range z.needles {
			for _, n := range forms {
				add(string(n), patSecret, i)
			}
			if guard {
				for _, n := range z.guards[i] {
					add(string(n), patSecret, i)
				}
			}
		}
		// Fields ending in "Base64" are decoded and searched: their raw text says nothing.
		add(`Base64"`, patField, 0)
		if !guard {
			for i, m := range z.maps {
				add(m.From, patMap, i)
			}
			for _, f := range secretFields {
				add(`"`+f.key+`"`, patField, 0)
			}
			for _, k := range []string{`"env"`, `"isSecret"`, `"answers"`} {
				add(k, patField, 0)
			}
		}
		track := make([]bool, len(pats))
		for i, p := range pats {
			track[i] = p.kind == patKeyword || p.kind == patRule
		}
		return prefilter{newMatcher(lits), pats, track}
	}
	z.sanPre, z.guardPre = build(false), build(true)
}

// filterFor runs the prefilter on b. The result is for a raw JSON line: call text()
// on it when b is text (or a decoded string).
func (z *Sanitizer) filterFor(b []byte, guard bool) filter {
	pre := &z.sanPre
	if guard {
		pre = &z.guardPre
	}
	f := filter{pre: pre}
	var buf [512]bool
	seen := buf[:0]
	if len(pre.pats) <= len(buf) {
		seen = buf[:len(pre.pats)]
	} else {
		seen = make([]bool, len(pre.pats))
	}
	any, hits := pre.m.scan(b, seen, pre.track, nil)
	if !any {
		return f
	}
	for _, h := range hits {
		if pre.pats[h.id].kind == patRule {
			f.ruleHits = append(f.ruleHits, h)
			continue
		}
		// The bytes before a keyword's separator tell the structural triggers
		// ("key": "key" :) from the others.
		if structural(b, h.end-1) {
			f.kwJSONPos = append(f.kwJSONPos, h.end)
		} else {
			f.kwPos = append(f.kwPos, h.end)
		}
	}
	f.keyword, f.keywordJSON = len(f.kwPos) > 0, len(f.kwJSONPos) > 0
	var rules uint64 // shape rules already in f.rules, by index
	for id, ok := range seen {
		if !ok {
			continue
		}
		p := pre.pats[id]
		switch p.kind {
		case patRule:
			if rules&(1<<p.idx) == 0 {
				rules |= 1 << p.idx
				f.rules = append(f.rules, shapeRules[p.idx])
			}
		case patKeyword:
		case patSecret:
			if len(f.secrets) == 0 || f.secrets[len(f.secrets)-1] != p.idx {
				f.secrets = append(f.secrets, p.idx)
			}
		case patMap:
			f.maps = append(f.maps, p.idx)
		case patField:
			f.fields = true
		}
	}
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
	bs := 0
	for k := i - 1; k >= 0 && b[k] == '\\'; k-- {
		bs++
	}
	return bs%2 == 0
}

// find returns the non-overlapping spans of text to replace, in order.
func (z *Sanitizer) find(text []byte, f *filter, dst []span, guard bool) []span {
	if f.empty() {
		return dst
	}
	base := len(dst)
	for _, i := range f.secrets {
		repl := ""
		forms := z.needles[i]
		if guard {
			forms = append(forms[:len(forms):len(forms)], z.guards[i]...)
		}
		for _, n := range forms {
			for off := 0; ; {
				k := bytes.Index(text[off:], n)
				if k < 0 {
					break
				}
				if repl == "" {
					repl = z.placeholder("known-secret", []byte(z.secrets[i].Value))
				}
				dst = append(dst, span{off + k, off + k + len(n), "known-secret", repl})
				off += k + len(n)
			}
		}
	}
	for _, r := range f.rules {
		dst = z.ruleSpans(r, text, f, dst)
	}
	if f.keyword {
		dst = z.keywordSpans(text, f.kwPos, f.base, dst)
	}
	for _, i := range f.maps {
		m := z.maps[i]
		from := []byte(m.From)
		for off := 0; ; {
			k := bytes.Index(text[off:], from)
			if k < 0 {
				break
			}
			s, e := off+k, off+k+len(from)
			off = e
			if s > 0 && isPathChar(text[s-1], true) || e < len(text) && isPathChar(text[e], false) || z.afterPlaceholder(text[:s]) {
				continue
			}
			dst = append(dst, span{s, e, "", m.To})
		}
	}
	return resolve(dst, base)
}

// ruleSpans runs r's expression on a window around each occurrence of one of its
// literals (found by the prefilter), never on the whole text.
func (z *Sanitizer) ruleSpans(r *shapeRule, text []byte, f *filter, dst []span) []span {
	covered := 0 // text before this has been searched by an earlier window
	for _, h := range f.ruleHits {
		p := f.pre.pats[h.id]
		if shapeRules[p.idx] != r {
			continue
		}
		occ := h.end - f.base - len(p.lit)
		if occ < 0 || occ+len(p.lit) > len(text) || occ < covered {
			continue
		}
		if !p.fold && !bytes.Equal(text[occ:occ+len(p.lit)], p.lit) {
			continue // the prefilter ignores case; this literal does not
		}
		off := occ + len(p.lit)
		if r.pre != nil && !r.pre(text, occ) {
			continue
		}
		ws := max(0, occ-r.before)
		runEnd := len(text)
		if r.run {
			runEnd = occ
			for runEnd < len(text) && isTokenByte(text[runEnd]) {
				runEnd++
			}
			runEnd = min(len(text), runEnd+1) // and the byte \b looks at
		}
		for size := r.after; ; size *= 2 {
			we := min(len(text), off+size)
			if r.run {
				we = runEnd
			}
			ms := r.re.FindAllSubmatchIndex(text[ws:we], -1)
			if !r.run && len(ms) > 0 && ms[len(ms)-1][1] == we-ws && we < len(text) {
				continue // a match reaches the window's end: it may go on
			}
			for _, m := range ms {
				if r.word && !wordStart(text, ws+m[0]) {
					continue
				}
				s, e := m[2*r.group], m[2*r.group+1]
				if s < 0 {
					continue
				}
				v := text[ws+s : ws+e]
				if isPlaceholder(v) || (r.accept != nil && !r.accept(v)) || z.allowed(v) {
					continue
				}
				dst = append(dst, span{ws + s, ws + e, r.name, z.placeholder(r.name, v)})
			}
			if len(ms) > 0 {
				covered = ws + ms[len(ms)-1][1] // later literals inside a match need no new window
			}
			break
		}
	}
	return dst
}

// afterPlaceholder reports whether b ends in a map's placeholder: "<tmp>/tmp" is what
// "/tmp/tmp" became, and its "/tmp" continues that path (sanitizing twice changes
// nothing).
func (z *Sanitizer) afterPlaceholder(b []byte) bool {
	if len(b) == 0 || b[len(b)-1] != '>' {
		return false
	}
	for _, m := range z.maps {
		if bytes.HasSuffix(b, []byte(m.To)) {
			return true
		}
	}
	return false
}

// isPathChar reports whether c continues a path name, so a map's From matched next
// to it is part of a longer name ("/tmp" in "/tmpfoo" or "./tmp").
func isPathChar(c byte, before bool) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || before && c == '.'
}

func (z *Sanitizer) allowed(v []byte) bool {
	for _, re := range z.allow {
		if re.Match(v) {
			return true
		}
	}
	return false
}

// resolve sorts dst[base:] and merges overlaps: a secret absorbs whatever it overlaps,
// and of overlapping paths the earliest, longest wins.
func resolve(dst []span, base int) []span {
	s := dst[base:]
	if len(s) < 2 {
		return dst
	}
	sort.Slice(s, func(i, j int) bool {
		if s[i].start != s[j].start {
			return s[i].start < s[j].start
		}
		return s[i].end > s[j].end
	})
	out := s[:1]
	for _, c := range s[1:] {
		p := &out[len(out)-1]
		if c.start >= p.end {
			out = append(out, c)
			continue
		}
		switch {
		case p.rule != "":
			p.end = max(p.end, c.end)
		case c.rule != "":
			p.rule, p.repl, p.end = c.rule, c.repl, max(p.end, c.end)
		}
	}
	return dst[:base+len(out)]
}

// rewrite appends raw to out with each span replaced. offs maps text offsets to raw
// ones (nil when raw is the text itself).
func rewrite(out, raw []byte, offs []int, spans []span) []byte {
	last := 0
	for _, s := range spans {
		rs, re := s.start, s.end
		if offs != nil {
			rs, re = offs[rs], offs[re]
		}
		out = append(out, raw[last:rs]...)
		out = append(out, s.repl...)
		last = re
	}
	return append(out, raw[last:]...)
}

// keywordSpans finds values introduced by a secret-sounding identifier, like
// `password=...`, `"api_key": "..."` or `GITHUB_TOKEN: ...`, when the value looks
// random enough to be a credential rather than a word, a path or a number. It looks
// only at the separators the prefilter found right after a keyword (pos, offsets
// past the separator in the coordinates of text[-base:]). text may be raw JSON
// string content (quotes escaped as \").
func (z *Sanitizer) keywordSpans(text []byte, pos []int, base int, dst []span) []span {
	for _, p := range pos {
		sep := p - 1 - base
		if sep < 0 || sep >= len(text) {
			continue
		}
		rule := keywordBefore(text[:sep])
		if rule == "" {
			continue
		}
		j := sep + 1
		if text[sep] == ':' && j < len(text) && text[j] == '=' {
			j++
		}
		j = skipQuote(text, skipSpace(text, j))
		v := j
		for v < len(text) && !isValueEnd(text[v]) {
			v++
		}
		val := text[j:v]
		if !secretLooking(val, rule) || z.allowed(val) {
			continue
		}
		dst = append(dst, span{j, v, rule, z.placeholder(rule, val)})
	}
	return dst
}

// skipSpace skips spaces and tabs, escaped tabs included.
func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch {
		case b[i] == ' ' || b[i] == '\t':
			i++
		case b[i] == '\\' && i+1 < len(b) && b[i+1] == 't':
			i += 2
		default:
			return i
		}
	}
	return i
}

// skipQuote skips one quote (', ", `, or an escaped \") at i.
func skipQuote(b []byte, i int) int {
	if i < len(b) && (b[i] == '"' || b[i] == '\'' || b[i] == '`') {
		return i + 1
	}
	if i+1 < len(b) && b[i] == '\\' && b[i+1] == '"' {
		return i + 2
	}
	return i
}

// keywordBefore returns the rule of the identifier that ends just before a separator,
// skipping a closing quote and spaces, or "".
func keywordBefore(b []byte) string {
	e := len(b)
	for e > 0 && (b[e-1] == ' ' || b[e-1] == '\t') {
		e--
	}
	if e > 0 && (b[e-1] == '"' || b[e-1] == '\'') {
		e--
		if e > 0 && b[e-1] == '\\' {
			e--
		}
	}
	s := e
	for s > 0 && e-s < 64 && isIdentChar(b[s-1]) {
		s--
	}
	if e-s < 5 {
		return ""
	}
	switch foldByte(b[e-1]) {
	case 'd', 'e', 't', 'n', 'y', 'l', 's':
	default:
		return ""
	}
	id := b[s:e]
	for _, k := range keywordSuffixes {
		if len(id) >= len(k.suffix) && equalFold(id[len(id)-len(k.suffix):], k.suffix) {
			return k.rule
		}
	}
	return ""
}

func isIdentChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

func equalFold(b []byte, lower string) bool {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

func isValueEnd(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '"', '\'', '`', ',', ';', '&', '<', '>', '(', ')', '{', '}', '[', ']', '\\', '|':
		return true
	}
	return c < 0x20
}

// secretLooking vets a keyword-introduced value: long enough, letters and digits
// mixed, not a path, URL, variable reference or UUID, and high enough entropy.
func secretLooking(v []byte, rule string) bool {
	if len(v) < 8 || len(v) > 512 {
		return false
	}
	if rule == "aws-secret-key" {
		return len(v) >= 40 && entropy(v) >= 3.5
	}
	switch v[0] {
	case '$', '/', '~', '.', '*':
		return false
	}
	if bytes.Contains(v, []byte("://")) || isUUID(v) {
		return false
	}
	if !hasDigit(v) || !hasLetter(v) {
		return false
	}
	return entropy(v) >= 0.65*math.Log2(float64(min(len(v), 64)))
}

func isUUID(v []byte) bool {
	if len(v) != 36 {
		return false
	}
	for i, c := range v {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

func log2(p float64) float64 { return math.Log2(p) }

// alignEscapes widens spans found in raw JSON string content so that none starts
// or ends inside an escape sequence (\n, \", \uXXXX): a replacement never leaves half
// an escape behind.
func alignEscapes(raw []byte, spans []span) {
	if len(spans) == 0 || bytes.IndexByte(raw, '\\') < 0 {
		return
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		end := min(len(raw), i+2)
		if end == i+2 && raw[i+1] == 'u' {
			end = min(len(raw), i+6)
		}
		for k := range spans {
			s := &spans[k]
			if s.start > i && s.start < end {
				s.start = i
			}
			if s.end > i && s.end < end {
				s.end = end
			}
		}
		i = end - 1
	}
}

// splitForText cuts spans of a line that is not valid JSON around the bytes that
// give JSON its structure (quotes, backslashes, control and non-ASCII bytes), each
// piece replaced alone: redacting never turns invalid JSON into valid JSON.
func splitForText(text []byte, spans []span) []span {
	var out []span
	for _, s := range spans {
		start := s.start
		for i := s.start; i <= s.end; i++ {
			if i < s.end && !structuralByte(text[i]) {
				continue
			}
			if i > start {
				out = append(out, span{start, i, s.rule, s.repl})
			}
			start = i + 1
		}
	}
	return out
}

func structuralByte(c byte) bool { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80 }
