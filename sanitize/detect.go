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

// filter says which searches can match a text at all, decided once per line with
// substring searches so that clean text never reaches a regular expression.
type filter struct {
	secrets []int // indices of known secrets with some encoding present
	rules   []*shapeRule
	keyword bool
	maps    []int
}

func (f *filter) empty() bool {
	return len(f.secrets) == 0 && len(f.rules) == 0 && !f.keyword && len(f.maps) == 0
}

func (z *Sanitizer) filterFor(b []byte, guard bool) filter {
	var f filter
	for i, forms := range z.needles {
		hit := false
		for _, n := range forms {
			if bytes.Contains(b, n) {
				hit = true
				break
			}
		}
		if !hit && guard {
			for _, n := range z.guards[i] {
				hit = hit || bytes.Contains(b, n)
			}
		}
		if hit {
			f.secrets = append(f.secrets, i)
		}
	}
	var lower []byte
	for _, r := range shapeRules {
		if len(r.lower) > 0 {
			if lower == nil {
				lower = toLower(b)
			}
			if containsAny(lower, r.lower) {
				f.rules = append(f.rules, r)
			}
		} else if containsAny(b, r.lits) {
			f.rules = append(f.rules, r)
		}
	}
	if bytes.IndexByte(b, ':') >= 0 || bytes.IndexByte(b, '=') >= 0 {
		if lower == nil {
			lower = toLower(b)
		}
		f.keyword = containsAny(lower, keywordLower)
	}
	if !guard {
		for i, m := range z.maps {
			if bytes.Contains(b, []byte(m.From)) {
				f.maps = append(f.maps, i)
			}
		}
	}
	return f
}

func containsAny(b []byte, lits []string) bool {
	for _, l := range lits {
		if bytes.Contains(b, []byte(l)) {
			return true
		}
	}
	return false
}

func toLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
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
		if len(r.lits) > 0 && !containsAny(text, r.lits) {
			continue
		}
		for _, m := range r.re.FindAllSubmatchIndex(text, -1) {
			s, e := m[2*r.group], m[2*r.group+1]
			if s < 0 {
				continue
			}
			v := text[s:e]
			if isPlaceholder(v) || (r.accept != nil && !r.accept(v)) || z.allowed(v) {
				continue
			}
			dst = append(dst, span{s, e, r.name, z.placeholder(r.name, v)})
		}
	}
	if f.keyword {
		dst = z.keywordSpans(text, dst)
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
			if s > 0 && isPathChar(text[s-1], true) || e < len(text) && isPathChar(text[e], false) {
				continue
			}
			dst = append(dst, span{s, e, "", m.To})
		}
	}
	return resolve(dst, base)
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
// random enough to be a credential rather than a word, a path or a number.
func (z *Sanitizer) keywordSpans(text []byte, dst []span) []span {
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != ':' && c != '=' {
			continue
		}
		rule := keywordBefore(text[:i])
		if rule == "" {
			continue
		}
		j := i + 1
		if c == ':' && j < len(text) && text[j] == '=' {
			j++
		}
		for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
			j++
		}
		if j < len(text) && (text[j] == '"' || text[j] == '\'' || text[j] == '`') {
			j++
		}
		k := j
		for k < len(text) && !isValueEnd(text[k]) {
			k++
		}
		v := text[j:k]
		if !secretLooking(v, rule) || z.allowed(v) {
			continue
		}
		dst = append(dst, span{j, k, rule, z.placeholder(rule, v)})
		i = k - 1
	}
	return dst
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
	}
	s := e
	for s > 0 && e-s < 64 && isIdentChar(b[s-1]) {
		s--
	}
	if e-s < 5 {
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
