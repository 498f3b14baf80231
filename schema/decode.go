package schema

import (
	"encoding/json"
	"errors"
	"strings"
	"unsafe"

	"github.com/codexrec/codexrec/internal/jsonx"
)

// decode parses a message into the values jsonschema validates (map[string]any,
// []any, string, bool, nil, json.Number); numbers keep their exact text so range
// checks see what was on the wire. The caller has already checked that b is JSON
// (wire.Classify does, for every kind but raw), so it is not validated twice: on a
// 200 KB output delta that is a third of the cost. The line is copied once and every
// string and number is a substring of the copy; only strings with escapes are built.
func decode(b []byte) (any, error) {
	d := decoder{s: string(b)}
	v := d.value(0)
	if d.err == nil {
		d.space()
		if d.i != len(d.s) {
			d.fail()
		}
	}
	return v, d.err
}

// maxDepth is how deeply values may nest, as in encoding/json.
const maxDepth = 10000

var errNotJSON = errors.New("not JSON")

type decoder struct {
	s   string
	i   int
	err error
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errNotJSON
	}
}

func (d *decoder) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) any {
	d.space()
	if d.i >= len(d.s) {
		d.fail()
		return nil
	}
	switch c := d.s[d.i]; c {
	case '"':
		return d.str()
	case '{', '[':
		if depth > maxDepth {
			d.err = errors.New("nested too deeply")
			return nil
		}
		if c == '{' {
			return d.object(depth)
		}
		return d.array(depth)
	case 't':
		return d.literal("true", true)
	case 'f':
		return d.literal("false", false)
	case 'n':
		return d.literal("null", nil)
	}
	start := d.i
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case '-', '+', '.', 'e', 'E', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			d.i++
			continue
		}
		break
	}
	if d.i == start {
		d.fail()
		return nil
	}
	return json.Number(d.s[start:d.i])
}

func (d *decoder) literal(word string, v any) any {
	if !strings.HasPrefix(d.s[d.i:], word) {
		d.fail()
		return nil
	}
	d.i += len(word)
	return v
}

// str reads a string at d.i (its opening quote). The closing quote is found with
// IndexByte, which skips long runs at memory speed; only strings with escapes are
// built, once, into memory the string then owns.
func (d *decoder) str() string {
	start := d.i + 1
	i, q := start, -1 // q: the next quote at or after i
	escaped := false
	for {
		if q < i {
			n := strings.IndexByte(d.s[i:], '"')
			if n < 0 {
				d.i = len(d.s)
				d.fail()
				return ""
			}
			q = i + n
		}
		n := strings.IndexByte(d.s[i:q], '\\')
		if n < 0 {
			break
		}
		escaped = true
		i += n + 2
	}
	d.i = q + 1
	raw := d.s[start:q]
	if !escaped {
		return raw
	}
	b := jsonx.AppendUnescaped(make([]byte, 0, len(raw)), raw)
	return unsafe.String(unsafe.SliceData(b), len(b)) // b is never written again
}

func (d *decoder) object(depth int) any {
	out := make(map[string]any, 8)
	d.i++ // {
	d.space()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		return out
	}
	for d.err == nil {
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			d.fail()
			break
		}
		k := d.str()
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != ':' {
			d.fail()
			break
		}
		d.i++
		out[k] = d.value(depth + 1)
		d.space()
		if d.i >= len(d.s) {
			d.fail()
			break
		}
		if d.s[d.i] == '}' {
			d.i++
			break
		}
		if d.s[d.i] != ',' {
			d.fail()
			break
		}
		d.i++
	}
	return out
}

func (d *decoder) array(depth int) any {
	out := []any{}
	d.i++ // [
	d.space()
	if d.i < len(d.s) && d.s[d.i] == ']' {
		d.i++
		return out
	}
	for d.err == nil {
		out = append(out, d.value(depth+1))
		d.space()
		if d.i >= len(d.s) {
			d.fail()
			break
		}
		if d.s[d.i] == ']' {
			d.i++
			break
		}
		if d.s[d.i] != ',' {
			d.fail()
			break
		}
		d.i++
	}
	return out
}
