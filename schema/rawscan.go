package schema

import "github.com/codexrec/codexrec/internal/jsonx"

// Navigation in a JSON value's bytes for the raw check (raw.go). The bytes were
// validated as JSON before (wire.Classify); malformed input makes these report false
// rather than guess.

// eachMember calls f with each member's name (the bytes between its quotes, escapes
// as written) and value of the object v, until f returns false. It reports whether v
// was read to its end (true also when f stopped it).
func eachMember(v []byte, f func(key, val []byte) bool) bool {
	i := skipSpace(v, 1)
	if i < len(v) && v[i] == '}' {
		return true
	}
	for i < len(v) && v[i] == '"' {
		kEnd := jsonx.StringEnd(v, i)
		if kEnd < 0 {
			return false
		}
		key := v[i+1 : kEnd-1]
		i = skipSpace(v, kEnd)
		if i >= len(v) || v[i] != ':' {
			return false
		}
		i = skipSpace(v, i+1)
		end := jsonx.ValueEnd(v, i)
		if end < 0 {
			return false
		}
		if !f(key, v[i:end]) {
			return true
		}
		i = skipSpace(v, end)
		if i >= len(v) {
			return false
		}
		if v[i] == '}' {
			return true
		}
		if v[i] != ',' {
			return false
		}
		i = skipSpace(v, i+1)
	}
	return false
}

// eachElement calls f with each element of the array v, until f returns false.
func eachElement(v []byte, f func(e []byte) bool) bool {
	i := skipSpace(v, 1)
	if i < len(v) && v[i] == ']' {
		return true
	}
	for i < len(v) {
		end := jsonx.ValueEnd(v, i)
		if end < 0 {
			return false
		}
		if !f(v[i:end]) {
			return true
		}
		i = skipSpace(v, end)
		if i >= len(v) {
			return false
		}
		if v[i] == ']' {
			return true
		}
		if v[i] != ',' {
			return false
		}
		i = skipSpace(v, i+1)
	}
	return false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}
