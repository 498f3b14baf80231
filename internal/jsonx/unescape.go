package jsonx

import (
	"strings"
	"unicode/utf8"
	"unsafe"
)

// AppendUnescaped appends the text of JSON string content raw (without its quotes,
// already known to be valid JSON) to dst, as encoding/json would decode it: a lone or
// mismatched surrogate becomes U+FFFD. Runs without escapes are copied whole, so a
// 200 KB output delta with a \n every line costs a few copies, not a loop per byte.
func AppendUnescaped(dst []byte, raw string) []byte {
	for {
		n := strings.IndexByte(raw, '\\')
		if n < 0 || n+1 >= len(raw) {
			return append(dst, raw...)
		}
		dst = append(dst, raw[:n]...)
		raw = raw[n:]
		c := raw[1]
		if c == 'u' {
			r, size := DecodeU(raw)
			dst = utf8.AppendRune(dst, r)
			raw = raw[size:]
			continue
		}
		if b, ok := EscapedByte(c); ok {
			dst = append(dst, b)
		} else {
			dst = append(dst, c) // not valid JSON: the character itself
		}
		raw = raw[2:]
	}
}

// AppendUnescapedBytes is AppendUnescaped for content held in a []byte, without
// first copying it into a string (a 100 MB output delta would cost 100 MB more).
// raw must not overlap dst's spare capacity.
func AppendUnescapedBytes(dst, raw []byte) []byte {
	if len(raw) == 0 {
		return dst
	}
	// AppendUnescaped only reads raw and keeps nothing of it once it returns: a
	// string viewing raw's bytes is safe for the call.
	return AppendUnescaped(dst, unsafe.String(unsafe.SliceData(raw), len(raw)))
}

// EscapedByte is the byte the two-character escape \c stands for; ok is false for
// \u (DecodeU) and for what JSON does not allow after a backslash.
func EscapedByte(c byte) (b byte, ok bool) {
	switch c {
	case '"', '\\', '/':
		return c, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

// DecodeU decodes the \uXXXX escape at the start of b, and the low surrogate escape
// following a high one, returning the rune and the bytes used. A lone or mismatched
// surrogate is U+FFFD (6 bytes used); malformed digits are U+FFFD using the 2 bytes
// of the backslash and u.
func DecodeU[T ~string | ~[]byte](b T) (rune, int) {
	if len(b) < 6 {
		return utf8.RuneError, min(len(b), 2)
	}
	h, ok := Hex4(b[2:6])
	if !ok {
		return utf8.RuneError, 2
	}
	if h >= 0xD800 && h < 0xDC00 && len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
		if l, ok := Hex4(b[8:12]); ok && l >= 0xDC00 && l < 0xE000 {
			return ((h-0xD800)<<10 | (l - 0xDC00)) + 0x10000, 12
		}
	}
	if h >= 0xD800 && h < 0xE000 {
		return utf8.RuneError, 6
	}
	return h, 6
}
