package sanitize

import "bytes"

// A PEM private key streamed over several deltas is redacted from its BEGIN line to
// its END line: the stream remembers that a block is open (streamState.pem).

var (
	keyPlaceholder = []byte("<redacted:private-key:")
	pemBegin       = []byte("-----BEGIN")
	pemEndB        = []byte("-----END")
	dashes         = []byte("-----")
)

// pemEnd returns the offset just past the first END line's closing dashes in w, or -1.
func pemEnd(w []byte) int {
	i := bytes.Index(w, pemEndB)
	if i < 0 {
		return -1
	}
	j := bytes.Index(w[i+len(pemEndB):], dashes)
	if j < 0 {
		return -1
	}
	return i + len(pemEndB) + j + len(dashes)
}

// pemOpen says whether a private key block is open at the end of seen: its last
// BEGIN ... PRIVATE KEY line comes after its last END line; with neither, it stays
// as it was.
func pemOpen(seen []byte, was bool) bool {
	if !bytes.Contains(seen, dashes) {
		return was
	}
	b := -1
	for off := 0; ; {
		i := bytes.Index(seen[off:], pemBegin)
		if i < 0 {
			break
		}
		i += off
		off = i + len(pemBegin)
		if k := bytes.IndexByte(seen[off:min(len(seen), off+80)], '\n'); true {
			hdr := seen[off:min(len(seen), off+80)]
			if k >= 0 {
				hdr = hdr[:k]
			}
			if bytes.Contains(hdr, []byte("PRIVATE KEY")) {
				b = i
			}
		}
	}
	e := bytes.LastIndex(seen, pemEndB)
	// What the sanitizer made of a block: its placeholder ends it (the END line is
	// inside), so the guard reading the sanitized stream does not see it open.
	e = max(e, bytes.LastIndex(seen, keyPlaceholder))
	switch {
	case b < 0 && e < 0:
		return was
	case b > e:
		return true
	default:
		return false
	}
}

// maxPEMLines bounds how many text lines after a BEGIN line without its END are
// redacted as key: an armored 4096-bit gpg key has about 110.
const maxPEMLines = 400

// textStream finds the secrets of one text line of the text stream (stderr, lines
// that are not JSON): the line's own secrets and, while a private key block that
// began on an earlier line is open, the key up to its END line (a key printed one
// line per frame). It updates the stream's state.
func (z *Sanitizer) textStream(text []byte, f *filter, dst []span) []span {
	base := len(dst)
	start := 0
	if left := z.textPEM.Load(); left > 0 {
		e := pemEnd(text)
		if e < 0 {
			e = len(text)
			z.textPEM.Store(left - 1)
		} else {
			z.textPEM.Store(0)
		}
		if e > 0 && !onlyPlaceholders(text[:e]) {
			dst = append(dst, span{0, e, "private-key", z.placeholder("private-key", text[:e]), nil})
		}
		start = e
	}
	if f != nil {
		dst = z.find(text, f, dst, false)
		dst = z.base64Spans(text, dst, false, 0)
	}
	if pemOpen(text[start:], false) {
		z.textPEM.Store(maxPEMLines)
	}
	return resolve(dst, base)
}

// onlyPlaceholders reports whether b holds nothing but placeholders, white space and
// the bytes a text line's redaction keeps around them (quotes, backslashes, control
// and non-ASCII bytes: splitForText), which no key is made of: what the sanitizer
// left of a key, nothing for the guard to find. A line it redacted inside a key block
// is so left as it is by a second pass.
func onlyPlaceholders(b []byte) bool {
	for len(b) > 0 {
		switch {
		case b[0] == ' ' || structuralByte(b[0]):
			b = b[1:]
		case b[0] == '<':
			k := bytes.IndexByte(b, '>')
			if k < 0 || !isPlaceholder(b[:k+1]) {
				return false
			}
			b = b[k+1:]
		default:
			return false
		}
	}
	return true
}

// pemKeyAt matches the private key block whose "PRIVATE KEY" (any case) is at
// text[i:]: from its "-----BEGIN" (at most 100 header characters before, letters,
// digits, spaces, '_' and '-') through " BLOCK"? and "-----", to the end of the
// first END line of the same shape after it, or to the end of text when none follows
// (the rest of the key is in a later delta or line).
func pemKeyAt(text []byte, i int) (s, e int, ok bool) {
	const lit = len("PRIVATE KEY")
	lo := max(0, i-110)
	b := -1
	for w := text[lo:i]; ; {
		k := bytes.LastIndex(w, dashes)
		if k < 0 {
			return 0, 0, false
		}
		if foldHasPrefix(w[k:], "-----begin") {
			b = lo + k + 10
			break
		}
		w = w[:k]
	}
	for _, c := range text[b:i] {
		if !isPEMHeaderByte(c) {
			return 0, 0, false
		}
	}
	h, ok := pemHeaderEnd(text, i+lit)
	if !ok {
		return 0, 0, false
	}
	for from := h; ; {
		k := indexFold(text[from:], "-----end")
		if k < 0 {
			return b - 10, len(text), true
		}
		k += from + len("-----end")
		j := k
		for j < len(text) && j-k <= 100 && isPEMHeaderByte(text[j]) && !foldHasPrefix(text[j:], "private key") {
			j++
		}
		if foldHasPrefix(text[j:], "private key") {
			if end, ok := pemHeaderEnd(text, j+lit); ok {
				return b - 10, end, true
			}
		}
		from = k
	}
}

// pemHeaderEnd reads an optional " BLOCK" and the closing "-----" at text[i:].
func pemHeaderEnd(text []byte, i int) (int, bool) {
	if foldHasPrefix(text[i:], " block") {
		i += len(" block")
	}
	if !bytes.HasPrefix(text[i:], dashes) {
		return 0, false
	}
	return i + len(dashes), true
}

func isPEMHeaderByte(c byte) bool {
	return isAlnum(c) || c == ' ' || c == '_' || c == '-'
}

// foldHasPrefix reports whether b starts with lower (ASCII, any case).
func foldHasPrefix(b []byte, lower string) bool {
	return len(b) >= len(lower) && equalFold(b[:len(lower)], lower)
}

// indexFold is the index of lower (ASCII, any case) in b, or -1; lower starts with
// a byte that has no case ('-').
func indexFold(b []byte, lower string) int {
	for off := 0; ; {
		k := bytes.Index(b[off:], []byte(lower[:5]))
		if k < 0 {
			return -1
		}
		k += off
		if foldHasPrefix(b[k:], lower) {
			return k
		}
		off = k + 1
	}
}
