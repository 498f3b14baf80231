package sanitize

import (
	"bytes"
	"encoding/base64"
)

// Base64 hides a secret from every literal: `kubectl get secret -o yaml`, a .dockerconfigjson,
// a Basic credential. A run of base64 or base64url characters inside any string is
// decoded, and when it decodes to text that holds a secret the whole run is replaced.
// The cost is bounded: only runs of minB64Run to maxB64Run characters that mix upper
// and lower case and digits are decoded, and decoded text is searched at most
// maxB64Depth levels deep.
const (
	minB64Run   = 20
	maxB64Run   = 64 << 10
	maxB64Depth = 2
)

func isB64Byte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_' || c == '='
}

// nextB64Run returns the next candidate run in b at or after i, or s < 0.
func nextB64Run(b []byte, i int) (s, e int) {
	for i < len(b) {
		if !isB64Byte(b[i]) {
			i++
			continue
		}
		j := i
		var upper, lower, digit bool
		for j < len(b) && isB64Byte(b[j]) {
			c := b[j]
			upper = upper || c >= 'A' && c <= 'Z'
			lower = lower || c >= 'a' && c <= 'z'
			digit = digit || c >= '0' && c <= '9'
			j++
		}
		if n := j - i; n >= minB64Run && n <= maxB64Run && upper && lower && digit {
			return i, j
		}
		i = j
	}
	return -1, -1
}

// hasB64Run reports whether b holds a candidate run at all (one pass, no decoding).
func hasB64Run(b []byte) bool {
	s, _ := nextB64Run(b, 0)
	return s >= 0
}

// decodeB64Text decodes run as base64 or base64url (padded or not) and returns it
// when it is text, else nil.
func decodeB64Text(run []byte) []byte {
	r := bytes.TrimRight(run, "=")
	if len(r)%4 == 1 {
		r = r[:len(r)-1]
	}
	enc := base64.RawStdEncoding
	if bytes.ContainsAny(r, "-_") {
		if bytes.ContainsAny(r, "+/") {
			return nil
		}
		enc = base64.RawURLEncoding
	}
	dec, err := enc.AppendDecode(nil, r)
	if err != nil || len(dec) == 0 {
		return nil
	}
	text := 0
	for _, c := range dec {
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\r' || c == '\t' {
			text++
		}
	}
	if text*10 < len(dec)*9 {
		return nil
	}
	return dec
}

// base64Spans adds a span for every base64 run of text (outside spans already found)
// whose decoded text holds a secret.
func (z *Sanitizer) base64Spans(text []byte, spans []span, guard bool, depth int) []span {
	if depth >= maxB64Depth {
		return spans
	}
	base := len(spans)
	for i := 0; ; {
		s, e := nextB64Run(text, i)
		if s < 0 {
			break
		}
		i = e
		if covered(spans[:base], s, e) {
			continue
		}
		dec := decodeB64Text(text[s:e])
		if dec == nil {
			continue
		}
		f := z.filterFor(dec, guard).text()
		inner := z.find(dec, &f, nil, guard)
		inner = z.base64Spans(dec, inner, guard, depth+1)
		for _, in := range inner {
			if in.rule != "" {
				spans = append(spans, span{s, e, in.rule, z.placeholder(in.rule, text[s:e])})
				break
			}
		}
	}
	if len(spans) > base {
		return resolve(spans, 0)
	}
	return spans
}

// covered reports whether [s, e) overlaps one of spans.
func covered(spans []span, s, e int) bool {
	for _, sp := range spans {
		if sp.start < e && s < sp.end {
			return true
		}
	}
	return false
}
