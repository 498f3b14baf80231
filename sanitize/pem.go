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

// onlyPlaceholders reports whether b holds nothing but placeholders and white space
// (what the sanitizer left of a key: nothing for the guard to find).
func onlyPlaceholders(b []byte) bool {
	for len(b) > 0 {
		switch {
		case b[0] == ' ' || b[0] == '\n' || b[0] == '\r' || b[0] == '\t':
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
