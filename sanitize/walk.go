package sanitize

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/codexrec/codexrec/internal/jsonx"
)

// walker visits every string of a valid JSON text (keys and values) in one pass over
// its raw bytes. It keeps the path to the current string so a JSON pointer can be
// built, but only when one is asked for: most strings need none.
type walker struct {
	stack []level
}

type level struct {
	array bool
	index int
	key   []byte // raw (still escaped) bytes of the current member's key
	// expectKey is set where the next string is a key.
	expectKey bool
}

// token is one string of the JSON text: raw[start:end] is its content between the quotes.
type token struct {
	start, end int
	isKey      bool
	escaped    bool // the raw content holds at least one backslash escape
}

// walk calls visit for each string in b, which must be valid JSON.
func (w *walker) walk(b []byte, visit func(t token)) {
	w.stack = w.stack[:0]
	n := len(b)
	for i := 0; i < n; {
		switch b[i] {
		case '{':
			w.stack = append(w.stack, level{expectKey: true})
			i++
		case '[':
			w.stack = append(w.stack, level{array: true})
			i++
		case '}', ']':
			if len(w.stack) > 0 {
				w.stack = w.stack[:len(w.stack)-1]
			}
			i++
		case ',':
			if top := w.top(); top != nil {
				if top.array {
					top.index++
				} else {
					top.expectKey = true
				}
			}
			i++
		case '"':
			end, esc := jsonx.StringEndEscaped(b, i)
			if end--; end < 0 {
				end = n // unterminated (b is valid JSON: never)
			}
			t := token{start: i + 1, end: end, escaped: esc}
			if top := w.top(); top != nil && !top.array && top.expectKey {
				top.key = b[i+1 : end]
				top.expectKey = false
				t.isKey = true
			}
			visit(t)
			i = end + 1
		default:
			i++
		}
	}
}

func (w *walker) top() *level {
	if len(w.stack) == 0 {
		return nil
	}
	return &w.stack[len(w.stack)-1]
}

// memberKey is the raw key of the member whose value is the current string, or nil
// when the string is an array element or the top level.
func (w *walker) memberKey() []byte {
	if top := w.top(); top != nil && !top.array {
		return top.key
	}
	return nil
}

// parentKey is the raw key under which the current object or array sits (for a value
// inside "env":{...}, it is "env").
func (w *walker) parentKey() []byte {
	if len(w.stack) < 2 {
		return nil
	}
	if p := w.stack[len(w.stack)-2]; !p.array {
		return p.key
	}
	return nil
}

// pointer is the RFC 6901 pointer of the current string (for a key, of its member).
func (w *walker) pointer() string {
	var sb strings.Builder
	for _, l := range w.stack {
		sb.WriteByte('/')
		if l.array {
			sb.WriteString(strconv.Itoa(l.index))
			continue
		}
		k := l.key
		if bytes.IndexByte(k, '\\') >= 0 {
			k, _ = unescape(k, nil)
		}
		sb.WriteString(jsonx.EscapeToken(string(k)))
	}
	return sb.String()
}

// unescape decodes the content of a JSON string as jsonx.AppendUnescaped does. offs,
// when non-nil on entry, is filled so that offs[k] is the raw offset where decoded
// byte k's escape begins, with offs[len(out)] = len(raw): spans found in the decoded
// text map back to raw bytes.
func unescape(raw []byte, offs []int) ([]byte, []int) {
	out := make([]byte, 0, len(raw))
	if offs == nil {
		return jsonx.AppendUnescapedBytes(out, raw), nil
	}
	offs = offs[:0]
	for i := 0; i < len(raw); {
		start, before := i, len(out)
		switch {
		case raw[i] != '\\' || i+1 >= len(raw):
			out = append(out, raw[i])
			i++
		case raw[i+1] == 'u':
			r, n := jsonx.DecodeU(raw[i:])
			out = utf8.AppendRune(out, r)
			i += n
		default:
			b, ok := jsonx.EscapedByte(raw[i+1])
			if !ok {
				b = raw[i+1] // not valid JSON: the character itself, as AppendUnescaped
			}
			out = append(out, b)
			i += 2
		}
		for range len(out) - before {
			offs = append(offs, start)
		}
	}
	return out, append(offs, len(raw))
}

// rawSpans maps spans found in the decoding of the JSON string content raw back to
// raw offsets, as unescape's offs would (a decoded position maps to where the escape
// that produced it begins; len(decoded) to len(raw)), without a table per byte.
func rawSpans(raw []byte, spans []span) []span {
	points := make([]int, 0, 2*len(spans))
	for _, s := range spans {
		points = append(points, s.start, s.end)
	}
	slices.Sort(points)
	points = slices.Compact(points)
	at := make(map[int]int, len(points))
	d, p := 0, 0
	for i := 0; i < len(raw) && p < len(points); {
		start := i
		var n int // decoded bytes this escape makes
		switch {
		case raw[i] != '\\' || i+1 >= len(raw):
			n, i = 1, i+1
		case raw[i+1] == 'u':
			r, k := jsonx.DecodeU(raw[i:])
			n, i = utf8.RuneLen(r), i+k
			if n < 0 {
				n = 3 // U+FFFD, as utf8.AppendRune writes an invalid rune
			}
		default:
			n, i = 1, i+2
		}
		for p < len(points) && points[p] < d+n {
			at[points[p]] = start
			p++
		}
		d += n
	}
	for ; p < len(points); p++ {
		at[points[p]] = len(raw)
	}
	out := make([]span, len(spans))
	for k, s := range spans {
		s.start, s.end = at[s.start], at[s.end]
		out[k] = s
	}
	return out
}
