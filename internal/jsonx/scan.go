package jsonx

import "bytes"

// StringEnd returns the index just past the string whose opening quote is b[i], or
// -1 when it is not closed. The closing quote is found with IndexByte: a 64 KB
// output delta is skipped at memory speed.
func StringEnd(b []byte, i int) int {
	e, _ := scanString(b, i, false)
	return e
}

// StringEndEscaped is StringEnd that also reports whether a closed string's content
// holds a backslash (an escape sequence), found with IndexByte too, up to the first
// one.
func StringEndEscaped(b []byte, i int) (end int, escaped bool) {
	return scanString(b, i, true)
}

func scanString(b []byte, i int, wantEsc bool) (int, bool) {
	esc := false
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1, esc
		}
		q := j + k
		if wantEsc && !esc {
			esc = bytes.IndexByte(b[j:q], '\\') >= 0
		}
		if Backslashes(b, q, i+1)%2 == 0 { // an odd count escapes the quote
			return q + 1, esc
		}
		j = q + 1
	}
}

// ValueEnd returns the index just past the JSON value starting at b[i], or -1 when
// it is not complete. It checks nothing beyond the brackets and quotes it follows:
// it finds a value's end in a document already known to be valid, or in one whose
// validity does not matter to the caller.
func ValueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return StringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e := StringEnd(b, j)
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

// Backslashes returns how many backslashes come right before b[i], counting back no
// further than b[lo]: an odd count escapes b[i] (in JSON string content, where
// backslashes pair off from the left, lo is where the content starts).
func Backslashes(b []byte, i, lo int) int {
	n := 0
	for k := i - 1; k >= lo && b[k] == '\\'; k-- {
		n++
	}
	return n
}
