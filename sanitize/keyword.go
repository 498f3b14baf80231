package sanitize

import (
	"bytes"
	"math"
)

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
		if !secretLooking(val, rule) || z.allowed(val) || isPlaceholderValue(val, generic) {
			continue
		}
		dst = append(dst, span{j, v, rule, z.placeholder(rule, val), nil})
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
