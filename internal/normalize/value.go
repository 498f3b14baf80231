package normalize

import (
	"encoding/json"
	"sort"
	"strconv"

	"github.com/codexrec/codexrec/internal/jsonx"
)

// Object is a JSON object with its members sorted by key (duplicate keys keep the last).
type Object []Member

// Member is one key and value of an Object.
type Member struct {
	Key   string
	Value any
}

// Get returns the value of key and whether it is present.
func (o Object) Get(key string) (any, bool) {
	i := sort.Search(len(o), func(i int) bool { return o[i].Key >= key })
	if i < len(o) && o[i].Key == key {
		return o[i].Value, true
	}
	return nil, false
}

// Masked stands for a value that varies from run to run. Two masked values are equal
// when their category and JSON type agree, so a timestamp that turns from a number
// into a string is still a difference.
type Masked struct {
	Category string // "time", "duration", "request-id", "path", ...
	Type     string // the JSON type of the original value: "string", "number", "bool", "object", "array"
}

// String renders the mask as it appears in reports: <time>, <path>.
func (m Masked) String() string { return "<" + m.Category + ">" }

// Deep is an object or array nested deeper than MaxDepth, kept as its exact JSON
// text and compared byte for byte: walking it would cost time quadratic in its depth
// (each level re-scans what is below it), and no real message nests that deep.
type Deep string

// MaxDepth is how deep Message normalises; deeper objects and arrays become Deep.
const MaxDepth = 128

// JSONText is a string that held a JSON object or array, parsed and normalised.
type JSONText struct {
	Value any
}

// TypeOf names the JSON type of a normalised value: null, bool, number, string,
// object, array; a Masked value reports its original type, a JSONText "string".
func TypeOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case json.Number:
		return "number"
	case string, JSONText:
		return "string"
	case Object:
		return "object"
	case []any:
		return "array"
	case Masked:
		return v.Type
	case Deep:
		if len(v) > 0 && v[0] == '[' {
			return "array"
		}
		return "object"
	}
	return "unknown"
}

// Equal reports whether two normalised values are the same.
func Equal(a, b any) bool { return equal(a, b, false) }

// equal is Equal, and with filled EqualFilled: a string of a holding placeholders
// also matches a string of b that fills them in.
func equal(a, b any, filled bool) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb
	case json.Number:
		bb, ok := b.(json.Number)
		return ok && a == bb
	case string:
		bb, ok := b.(string)
		if !ok {
			return false
		}
		if a == bb {
			return true
		}
		if filled {
			if re := placeholderPattern(a); re != nil {
				return re.MatchString(bb)
			}
		}
		return false
	case Masked:
		bb, ok := b.(Masked)
		return ok && a == bb
	case Deep:
		bb, ok := b.(Deep)
		return ok && a == bb
	case JSONText:
		bb, ok := b.(JSONText)
		return ok && equal(a.Value, bb.Value, filled)
	case Object:
		bb, ok := b.(Object)
		if !ok || len(a) != len(bb) {
			return false
		}
		for i := range a {
			if a[i].Key != bb[i].Key || !equal(a[i].Value, bb[i].Value, filled) {
				return false
			}
		}
		return true
	case []any:
		bb, ok := b.([]any)
		if !ok || len(a) != len(bb) {
			return false
		}
		for i := range a {
			if !equal(a[i], bb[i], filled) {
				return false
			}
		}
		return true
	}
	return false
}

// Marshal renders a normalised value as compact JSON with sorted keys: masks become
// strings such as "<time>", a JSONText the string of its normalised JSON. Equal values
// give equal bytes.
func Marshal(v any) []byte { return appendValue(nil, v) }

func appendValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case json.Number:
		return append(b, v...)
	case string:
		return jsonx.AppendString(b, v)
	case Masked:
		return jsonx.AppendString(b, v.String())
	case Deep:
		return append(b, v...)
	case JSONText:
		return jsonx.AppendString(b, string(Marshal(v.Value)))
	case Object:
		b = append(b, '{')
		for i, m := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonx.AppendString(b, m.Key)
			b = append(b, ':')
			b = appendValue(b, m.Value)
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, e)
		}
		return append(b, ']')
	}
	return append(b, "null"...)
}

// MarshalPrefix is a prefix of Marshal(v) at least n bytes long, or all of it when it
// is shorter: what a report that shortens values needs, without rendering a 100 MB
// string whole.
func MarshalPrefix(v any, n int) []byte {
	b, _ := appendPrefix(nil, v, n)
	return b
}

// appendPrefix is appendValue stopping once b holds more than n bytes; full is false
// when it stopped.
func appendPrefix(b []byte, v any, n int) (out []byte, full bool) {
	if len(b) > n {
		return b, false
	}
	switch v := v.(type) {
	case string:
		return appendStringPrefix(b, v, n-len(b))
	case JSONText:
		inner, _ := appendPrefix(nil, v.Value, n-len(b))
		return appendStringPrefix(b, string(inner), n-len(b))
	case Object:
		b = append(b, '{')
		for i, m := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonx.AppendString(b, m.Key)
			b = append(b, ':')
			if b, full = appendPrefix(b, m.Value, n); !full {
				return b, false
			}
		}
		return append(b, '}'), true
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			if b, full = appendPrefix(b, e, n); !full {
				return b, false
			}
		}
		return append(b, ']'), true
	}
	return appendValue(b, v), true
}

// appendStringPrefix appends s as a JSON string, or when s is longer than n bytes,
// the escaped start of it (escaping goes byte by byte, so the start of s escaped is
// the start of s's escaping, and at least as long).
func appendStringPrefix(b []byte, s string, n int) ([]byte, bool) {
	if len(s) <= n {
		return jsonx.AppendString(b, s), true
	}
	b = append(b, '"')
	return jsonx.AppendContent(b, s[:n+1]), false
}
