package schema

import "bytes"

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
		kEnd := stringEnd(v, i)
		if kEnd < 0 {
			return false
		}
		key := v[i+1 : kEnd-1]
		i = skipSpace(v, kEnd)
		if i >= len(v) || v[i] != ':' {
			return false
		}
		i = skipSpace(v, i+1)
		end := valueEnd(v, i)
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
		end := valueEnd(v, i)
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

// stringEnd returns the index just past the string whose opening quote is b[i], or -1.
// The closing quote is found with IndexByte: a 64 KB output delta is skipped at
// memory speed.
func stringEnd(b []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		n := 0 // backslashes right before the quote: an odd count escapes it
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// valueEnd returns the index just past the value starting at b[i], or -1.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e := stringEnd(b, j)
				if e < 0 {
					return -1
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return j
		}
		j++
	}
	return j
}
