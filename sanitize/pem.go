package sanitize

import "bytes"

// A PEM private key streamed over several deltas is redacted from its BEGIN line to
// its END line: the stream remembers that a block is open (streamState.pem).

var (
	pemBegin = []byte("-----BEGIN")
	pemEndB  = []byte("-----END")
	dashes   = []byte("-----")
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
	switch {
	case b < 0 && e < 0:
		return was
	case b > e:
		return true
	default:
		return false
	}
}
