// Package jsonx holds JSON string escapes: the one escaper the recorder, sanitize,
// replay and normalize share, so that what one writes the others can find, the
// reading of a \u escape's digits (sanitize, check), and RFC 6901 pointer tokens
// (every finding, redaction and diff names its place with one). It parses no JSON
// documents: that is gjson's and wire's job.
package jsonx

// Escaping chooses how a string's content is written. The zero value escapes only what
// JSON requires: quote and backslash, \n, \r and \t in their short forms, the other
// control characters as \u00XX; everything else, <, > and & included, stays as it is.
type Escaping uint8

const (
	// ShortBF writes backspace and form feed as \b and \f, as serde_json (the
	// app-server's encoder) does, so escaped text matches the server's bytes.
	ShortBF Escaping = 1 << iota
	// EscapeDEL also writes DEL (0x7f) as \u007f, so it shows in a text viewer.
	EscapeDEL
)

const hex = "0123456789abcdef"

// AppendString appends s as a quoted JSON string escaped the zero Escaping's way.
func AppendString(b []byte, s string) []byte { return Escaping(0).AppendString(b, s) }

// AppendContent appends s as JSON string content (without quotes) escaped the zero
// Escaping's way.
func AppendContent(b []byte, s string) []byte { return Escaping(0).AppendContent(b, s) }

// AppendString appends s as a quoted JSON string. s should be valid UTF-8: bytes are
// copied as they are, so invalid UTF-8 stays invalid.
func (e Escaping) AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	b = e.AppendContent(b, s)
	return append(b, '"')
}

// AppendContent appends s as JSON string content, without the quotes.
func (e Escaping) AppendContent(b []byte, s string) []byte {
	var del byte // a control character, so never reached below, unless DEL is escaped
	if e&EscapeDEL != 0 {
		del = 0x7f
	}
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != del {
			continue
		}
		b = append(b, s[start:i]...)
		start = i + 1
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\b' && e&ShortBF != 0:
			b = append(b, '\\', 'b')
		case c == '\f' && e&ShortBF != 0:
			b = append(b, '\\', 'f')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
	}
	return append(b, s[start:]...)
}

// Hex4 reads the four hex digits of a \u escape at the start of b (the UTF-16 code
// unit, surrogates included); ok is false when b is shorter or a digit is not hex.
func Hex4[T ~string | ~[]byte](b T) (r rune, ok bool) {
	if len(b) < 4 {
		return 0, false
	}
	for i := range 4 {
		switch c := b[i]; {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
