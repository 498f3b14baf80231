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

// b64Class classifies bytes for nextB64Run: 0 not base64, else a bit for upper case,
// lower case, digit, or other base64 character.
var b64Class = func() (t [256]uint8) {
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = 1
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = 2
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = 4
	}
	for _, c := range "+/-_=" {
		t[c] = 8
	}
	return t
}()

func isB64Byte(c byte) bool { return b64Class[c] != 0 }

// nextB64Run returns the next candidate run in b at or after i, or s < 0. It looks
// at the byte minB64Run-1 ahead first: when that is not base64, no candidate starts
// before it and the bytes in between are never read. Text is mostly short runs
// (words, path parts), so most of it is skipped a run length at a time.
func nextB64Run(b []byte, i int) (s, e int) {
	for i+minB64Run <= len(b) {
		p := i + minB64Run - 1
		if b64Class[b[p]] == 0 {
			i = p + 1
			continue
		}
		// Any candidate starting in [i, p] holds b[p]: it is the run through p.
		st := p
		for st > i && b64Class[b[st-1]] != 0 {
			st--
		}
		j := p + 1
		for j < len(b) && b64Class[b[j]] != 0 {
			j++
		}
		if n := j - st; n >= minB64Run && n <= maxB64Run {
			var seen uint8
			for _, c := range b[st:j] {
				seen |= b64Class[c]
			}
			if seen&7 == 7 {
				return st, j
			}
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
				spans = append(spans, span{s, e, in.rule, z.placeholder(in.rule, text[s:e]), nil})
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
