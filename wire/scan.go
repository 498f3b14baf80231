package wire

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// This file is a JSON validator that also picks out the top-level members JSON-RPC
// classification needs, in one pass. gjson validates strings a byte at a time and then
// walks the object again; on 200 KB command-output deltas that was half the recording
// proxy's CPU. Here string bodies are skipped eight bytes at a time.

// span is a member value's position in the scanned bytes; end 0 means absent.
type span struct{ start, end int }

// topMembers are the top-level members of a JSON-RPC message.
type topMembers struct {
	method, id     span
	result, errorV span
}

const maxDepth = 10000

type scanner struct {
	b     []byte
	i     int
	depth int
}

// scanMessage reports whether b (a whole line without its newline, valid UTF-8 not
// required: the caller checks that) is exactly one JSON value, and when it is an
// object, where its top-level method, id, result and error members are.
func scanMessage(b []byte) (m topMembers, isObject, ok bool) {
	s := scanner{b: b}
	s.space()
	if s.i < len(b) && b[s.i] == '{' {
		isObject = true
		ok = s.object(&m)
	} else {
		ok = s.value()
	}
	s.space()
	return m, isObject, ok && s.i == len(b)
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) value() bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.object(nil)
	case c == '[':
		return s.array()
	case c == '"':
		return s.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return false
}

func (s *scanner) object(top *topMembers) bool {
	if s.depth++; s.depth > maxDepth {
		return false
	}
	s.i++ // {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		s.depth--
		return true
	}
	for {
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return false
		}
		keyStart := s.i
		if !s.str() {
			return false
		}
		key := s.b[keyStart+1 : s.i-1]
		s.space()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.space()
		valStart := s.i
		if !s.value() {
			return false
		}
		if top != nil {
			v := span{valStart, s.i}
			switch string(key) {
			case "method":
				top.method = v
			case "id":
				top.id = v
			case "result":
				top.result = v
			case "error":
				top.errorV = v
			}
		}
		s.space()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.space()
		case '}':
			s.i++
			s.depth--
			return true
		default:
			return false
		}
	}
}

func (s *scanner) array() bool {
	if s.depth++; s.depth > maxDepth {
		return false
	}
	s.i++ // [
	s.space()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		s.depth--
		return true
	}
	for {
		if !s.value() {
			return false
		}
		s.space()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.space()
		case ']':
			s.i++
			s.depth--
			return true
		default:
			return false
		}
	}
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// special reports, per byte, whether it is '"', '\\' or a control character.
func special(v uint64) uint64 {
	q := v ^ (lsb * '"')
	return ((q-lsb)&^q)&msb | escOrCtl(v)
}

// escOrCtl reports, per byte, whether it is '\\' or a control character (the lowest
// flagged byte is exact; borrows may flag bytes above it).
func escOrCtl(v uint64) uint64 {
	bs := v ^ (lsb * '\\')
	return ((bs-lsb)&^bs | (v-lsb*0x20)&^v) & msb
}

// str skips a string starting at the opening quote. Short strings (keys, ids) are
// scanned eight bytes at a time; past 32 bytes the closing quote is found with
// IndexByte (vectorized) and only the bytes before it are checked, eight at a time,
// for a backslash or a control character: output deltas run to hundreds of kilobytes.
func (s *scanner) str() bool {
	b := s.b
	i := s.i + 1
	for k := 0; k < 4 && i+8 <= len(b); k++ {
		m := special(binary.LittleEndian.Uint64(b[i:]))
		if m == 0 {
			i += 8
			continue
		}
		i += bits.TrailingZeros64(m) / 8
		if b[i] == '"' {
			s.i = i + 1
			return true
		}
		break
	}
	q := -1 // the first '"' at or after i
	for {
		if q < i {
			n := bytes.IndexByte(b[i:], '"')
			if n < 0 {
				return false
			}
			q = i + n
		}
		for i+8 <= q {
			m := escOrCtl(binary.LittleEndian.Uint64(b[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) / 8
			// A two-byte escape (\n, \"...) is stepped over without leaving the loop:
			// command output has one every line.
			if b[i] != '\\' || !shortEscape[b[i+1]] {
				break
			}
			i += 2
		}
		if i > q {
			continue // an escaped quote was q
		}
		for i < q && b[i] != '\\' && b[i] >= 0x20 {
			i++
		}
		if i == q {
			s.i = q + 1
			return true
		}
		if b[i] != '\\' {
			return false // a control character
		}
		if i+1 >= len(b) {
			return false
		}
		switch {
		case shortEscape[b[i+1]]:
			i += 2
		case b[i+1] == 'u':
			if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
				return false
			}
			i += 6
		default:
			return false
		}
	}
}

// shortEscape marks the characters that may follow a backslash as a complete escape.
var shortEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func (s *scanner) number() bool {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	s.i = i
	return true
}

func (s *scanner) literal(lit string) bool {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}
