package sanitize

import "bytes"

// Percent-encoding hides a secret's structure from the rules: a PEM block in a URL
// (-----BEGIN%20OPENSSH%20PRIVATE%20KEY-----%0A...), a token after %3D, which has
// no word boundary before it. A run of text holding percent escapes is decoded and
// searched, and what is found there is mapped back to the run's raw bytes.

// hasPercentEscape reports whether b holds a %XX escape of a byte that is not a
// letter or digit (only those change what the rules see).
func hasPercentEscape(b []byte) bool {
	for i := 0; ; i++ {
		k := bytes.IndexByte(b[i:], '%')
		if k < 0 {
			return false
		}
		i += k
		if i+2 >= len(b) {
			return false
		}
		if v, ok := unhex2(b[i+1], b[i+2]); ok && !isAlnum(v) {
			return true
		}
	}
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func unhex2(a, b byte) (byte, bool) {
	h, ok1 := unhex(a)
	l, ok2 := unhex(b)
	return h<<4 | l, ok1 && ok2
}

// percentRunEnd reports whether c ends a run of URL text (white space, quotes,
// brackets, a backslash: what a URL's escaped form never holds).
func percentRunEnd(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', '`', '<', '>', '\\', '(', ')', '[', ']', '{', '}':
		return true
	}
	return c < 0x20
}

// percentSpans adds a span for each secret found in the decoding of a run of text
// holding percent escapes, in text's coordinates (an escape is never cut).
func (z *Sanitizer) percentSpans(text []byte, dst []span, guard bool) []span {
	for i := 0; i < len(text); {
		if percentRunEnd(text[i]) {
			i++
			continue
		}
		s := i
		esc := false
		for i < len(text) && !percentRunEnd(text[i]) {
			if text[i] == '%' && i+2 < len(text) {
				if _, ok := unhex2(text[i+1], text[i+2]); ok {
					esc = true
				}
			}
			i++
		}
		if !esc || i-s < 8 {
			continue
		}
		run := text[s:i]
		dec := make([]byte, 0, len(run))
		offs := make([]int, 0, len(run)+1)
		for k := 0; k < len(run); {
			offs = append(offs, s+k)
			if run[k] == '%' && k+2 < len(run) {
				if v, ok := unhex2(run[k+1], run[k+2]); ok {
					dec = append(dec, v)
					k += 3
					continue
				}
			}
			dec = append(dec, run[k])
			k++
		}
		offs = append(offs, i)
		f := z.filterFor(dec, guard).text()
		inner := z.find(dec, &f, nil, guard)
		inner = z.base64Spans(dec, inner, guard, 0)
		for _, in := range inner {
			if in.rule == "" {
				continue // paths are mapped where they are spelled plainly
			}
			dst = append(dst, span{offs[in.start], offs[in.end], in.rule, in.repl, nil})
		}
	}
	return dst
}
