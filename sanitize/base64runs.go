package sanitize

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
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
		// Any candidate starting in [i, p] holds b[p]: it is the run through p. The
		// classes it mixes are gathered on the way, not in a pass of their own.
		seen := b64Class[b[p]]
		st := p
		for st > i {
			c := b64Class[b[st-1]]
			if c == 0 {
				break
			}
			seen |= c
			st--
		}
		j := p + 1
		for j < len(b) {
			c := b64Class[b[j]]
			if c == 0 {
				break
			}
			seen |= c
			j++
		}
		if w := wrappedEnd(b, st, j); w != j {
			for _, c := range b[j:w] {
				seen |= b64Class[c]
			}
			j = w
		}
		if n := j - st; n >= minB64Run && n <= maxB64Run && seen&7 == 7 {
			return st, j
		}
		i = j
	}
	return -1, -1
}

// minWrap is the shortest line of wrapped base64 joined with the next (base64 -w,
// openssl base64 and PEM wrap at 60, 64 or 76).
const minWrap = 40

// wrappedEnd extends the run b[st:j] across line breaks (a newline, or the \n
// escape of raw JSON content) while it is wrapped base64: each line as long as the
// first (at least minWrap, a multiple of 4), the last one not longer. It returns the
// run's new end (j when it is not wrapped).
func wrappedEnd(b []byte, st, j int) int {
	width := j - st
	if width < minWrap || width%4 != 0 {
		return j
	}
	for {
		k := j
		switch {
		case k+1 < len(b) && b[k] == '\\' && b[k+1] == 'n':
			k += 2
		case k < len(b) && b[k] == '\n':
			k++
		default:
			return j
		}
		e := k
		for e < len(b) && b64Class[b[e]] != 0 && e-k <= width {
			e++
		}
		n := e - k
		if n == 0 || n > width || e < len(b) && !(b[e] == '\n' || b[e] == '\\' || b[e] == '\r' || b[e] == '"') {
			return j // not a line of base64 alone
		}
		j = e
		if n < width {
			return j // the last line
		}
	}
}

// joinWrapped returns a run of wrapped base64 without its line breaks (run itself
// when it has none).
func joinWrapped(run []byte) []byte {
	if !bytes.ContainsAny(run, "\n\\") {
		return run
	}
	out := make([]byte, 0, len(run))
	for i := 0; i < len(run); i++ {
		switch {
		case run[i] == '\n':
		case run[i] == '\\' && i+1 < len(run) && run[i+1] == 'n':
			i++
		default:
			out = append(out, run[i])
		}
	}
	return out
}

// hasB64Run reports whether b holds a candidate run at all (one pass, no decoding).
// A candidate holds a capital letter, so text without one (much command output:
// paths, timings, lower-case words) is ruled out by hasUpper, eight bytes a step,
// before the runs are walked.
func hasB64Run(b []byte) bool {
	if !hasUpper(b) {
		return false
	}
	s, _ := nextB64Run(b, 0)
	return s >= 0
}

// hasUpper reports whether b holds an ASCII capital letter (b64Class 1).
func hasUpper(b []byte) bool {
	for len(b) >= 32 {
		w0, w1 := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
		w2, w3 := binary.LittleEndian.Uint64(b[16:]), binary.LittleEndian.Uint64(b[24:])
		if upperBytes(w0)|upperBytes(w1)|upperBytes(w2)|upperBytes(w3) != 0 {
			return true
		}
		b = b[32:]
	}
	for len(b) >= 8 {
		if upperBytes(binary.LittleEndian.Uint64(b)) != 0 {
			return true
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= 'A' && c <= 'Z' {
			return true
		}
	}
	return false
}

// upperBytes has the top bit of each byte of w that is an ASCII capital letter set,
// and no other bit. Each byte's low seven bits plus a constant below 0x41 never
// carry into the next byte: the sum's top bit says whether they reach 'A' (or pass
// 'Z'), and a byte with its own top bit set is no ASCII.
func upperBytes(w uint64) uint64 {
	const (
		ones = 0x0101010101010101
		tops = 0x8080808080808080
	)
	low := w &^ tops
	atLeastA := low + (0x80-'A')*ones
	pastZ := low + (0x80-'Z'-1)*ones
	return atLeastA &^ pastZ &^ w & tops
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
		// A run partly covered is decoded still when it is wrapped (a rule may see
		// its first line only).
		if covered(spans[:base], s, e) && (!bytes.ContainsAny(text[s:e], "\n\\") || within(spans[:base], s, e)) {
			continue
		}
		dec := decodeB64Text(joinWrapped(text[s:e]))
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

// within reports whether [s, e) lies inside one of spans.
func within(spans []span, s, e int) bool {
	for _, sp := range spans {
		if sp.start <= s && e <= sp.end {
			return true
		}
	}
	return false
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
