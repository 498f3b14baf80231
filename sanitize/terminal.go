package sanitize

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// EscapeTerminal makes recorded text safe to print on a terminal: control characters
// (C0 but newline and tab, DEL, C1), invalid UTF-8 and the bidirectional overrides
// that reorder what is shown are written as visible escapes (\x1b, \u202e), so
// recorded content cannot move the cursor, recolor, retitle the window (ANSI, OSC)
// or hide text. Everything else is unchanged.
func EscapeTerminal(s string) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if UnsafeRune(r, n) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case UnsafeRune(r, n) && r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case UnsafeRune(r, n):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// UnsafeRune reports whether EscapeTerminal escapes the rune r, n bytes long
// (utf8.DecodeRune's results): C0 but newline and tab, DEL, C1, invalid UTF-8 and
// the bidirectional overrides.
func UnsafeRune(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n == 1:
		return true
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
		return true
	case r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c:
		return true
	}
	return false
}
