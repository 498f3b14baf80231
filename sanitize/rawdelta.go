package sanitize

import (
	"bytes"
	"encoding/base64"

	"github.com/codexrec/codexrec/internal/jsonx"
)

// A delta frame can be a hundred megabytes of command output. gjson copies what it
// returns from a []byte (and unescapes a string's value), so locating a delta with it
// cost several copies of the line. The functions here find the delta's raw bytes in
// place and decode only the part a caller reads.

// deltaRaw locates a delta frame (item/*/delta's params.delta, command/exec
// outputDelta's params.deltaBase64; a recording's frame entry, under "msg", counts
// too): its stream and the raw content of its delta string, a sub-slice of line.
// Decoding raw must succeed for ok (a deltaBase64 that is not base64 is no delta).
func deltaRaw(line []byte) (stream string, raw []byte, b64, ok bool) {
	// The member is found by its name as written: a line without it is read no
	// further (most lines; a recording's envelope, a small notification).
	if !bytes.Contains(line, []byte(`"delta`)) {
		return "", nil, false, false
	}
	return parseDelta(line)
}

// parseDelta is deltaRaw without its first check.
func parseDelta(line []byte) (stream string, raw []byte, b64, ok bool) {
	line = bytes.TrimRight(line, " \t\r\n")
	p, found := memberRaw(line, "params")
	if !found {
		if msg, ok := memberRaw(line, "msg"); ok {
			p, _ = memberRaw(msg, "params")
		}
	}
	if len(p) == 0 || p[0] != '{' {
		return "", nil, false, false
	}
	stream = stringValue(p, "itemId")
	if stream == "" {
		if pid := stringValue(p, "processId"); pid != "" {
			stream = pid + "/" + stringValue(p, "stream")
		}
	}
	if stream == "" {
		return "", nil, false, false
	}
	if d, ok := memberRaw(p, "delta"); ok && len(d) >= 2 && d[0] == '"' {
		return stream, d[1 : len(d)-1], false, true
	}
	if d, ok := memberRaw(p, "deltaBase64"); ok && len(d) >= 2 && d[0] == '"' {
		raw = d[1 : len(d)-1]
		if !validBase64(raw) {
			return "", nil, false, false
		}
		return stream, raw, true, true
	}
	return "", nil, false, false
}

// deltaPrefix decodes at most the first n bytes of a delta's text from its raw
// content, without decoding the rest.
func deltaPrefix(raw []byte, b64 bool, n int) []byte {
	if b64 {
		if bytes.IndexByte(raw, '\\') >= 0 {
			dec, _ := base64.StdEncoding.DecodeString(string(jsonx.AppendUnescaped(nil, string(raw))))
			return dec[:min(len(dec), n)]
		}
		k := min(len(raw), (n+2)/3*4)
		dec, _ := base64.StdEncoding.AppendDecode(nil, raw[:k])
		return dec[:min(len(dec), n)]
	}
	// Each escape decodes to at least one byte, so n*6 raw bytes hold n decoded ones;
	// the cut is moved off the middle of an escape.
	k := escapeBoundary(raw, min(len(raw), n*6))
	dec := jsonx.AppendUnescapedBytes(make([]byte, 0, k), raw[:k])
	return dec[:min(len(dec), n)]
}

// escapeBoundary moves the offset p of raw JSON string content back to where an
// escape (\n, \", \uXXXX) begins when it falls inside one.
func escapeBoundary(raw []byte, p int) int {
	for q := p - 1; q >= max(0, p-6); q-- {
		if raw[q] != '\\' {
			continue
		}
		if jsonx.Backslashes(raw, q, 0)%2 == 1 { // raw[q] is itself escaped
			continue
		}
		width := 2
		if q+1 < len(raw) && raw[q+1] == 'u' {
			width = 6
		}
		if q+width > p {
			return q
		}
		return p
	}
	return p
}

// validBase64 reports whether raw (JSON string content) decodes as standard padded
// base64, as base64.StdEncoding.DecodeString would, decoding it piece by piece into a
// small buffer rather than whole.
func validBase64(raw []byte) bool {
	if bytes.IndexByte(raw, '\\') >= 0 {
		_, err := base64.StdEncoding.DecodeString(string(jsonx.AppendUnescaped(nil, string(raw))))
		return err == nil
	}
	if len(raw)%4 != 0 {
		return false
	}
	var buf [3 << 10]byte
	for i := 0; i < len(raw); i += 4 << 10 {
		chunk := raw[i:min(len(raw), i+4<<10)]
		if i+len(chunk) < len(raw) && bytes.IndexByte(chunk, '=') >= 0 {
			return false // padding before the end
		}
		if _, err := base64.StdEncoding.Decode(buf[:], chunk); err != nil {
			return false
		}
	}
	return true
}

// stringValue is the decoded value of obj's member key when it is a string, else "".
func stringValue(obj []byte, key string) string {
	v, ok := memberRaw(obj, key)
	if !ok || len(v) < 2 || v[0] != '"' {
		return ""
	}
	if v = v[1 : len(v)-1]; bytes.IndexByte(v, '\\') < 0 {
		return string(v) // an id, as nearly always: one copy
	}
	return string(jsonx.AppendUnescapedBytes(nil, v))
}

// memberRaw returns the raw value of the first member named key (compared as
// written, escapes and all, as gjson does for plain keys) of the JSON object obj.
func memberRaw(obj []byte, key string) ([]byte, bool) {
	v, whole, ok := memberPrefix(obj, key)
	return v, ok && whole
}

// memberPrefix is memberRaw for obj that may be cut short: the value found may be
// the start of one (whole false). A member cut before its value, or before key is
// reached, is not found.
func memberPrefix(obj []byte, key string) (val []byte, whole, ok bool) {
	i := skipSpaces(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil, false, false
	}
	i = skipSpaces(obj, i+1)
	for i < len(obj) && obj[i] == '"' {
		kEnd := jsonx.StringEnd(obj, i) - 1
		if kEnd < 0 {
			return nil, false, false
		}
		k := obj[i+1 : kEnd]
		i = skipSpaces(obj, kEnd+1)
		if i >= len(obj) || obj[i] != ':' {
			return nil, false, false
		}
		i = skipSpaces(obj, i+1)
		end := jsonx.ValueEnd(obj, i)
		if string(k) == key && i < len(obj) {
			if end < 0 {
				return obj[i:], false, true
			}
			return obj[i:end], true, true
		}
		if end < 0 {
			return nil, false, false
		}
		i = skipSpaces(obj, end)
		if i >= len(obj) || obj[i] != ',' {
			return nil, false, false
		}
		i = skipSpaces(obj, i+1)
	}
	return nil, false, false
}

// lacksMember reports for sure that the JSON object obj has no member named key:
// every member's name is read as written (a name with an escape, or a text that is
// no well-formed object, tells nothing: false).
func lacksMember(obj []byte, key string) bool {
	i := skipSpaces(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i = skipSpaces(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return true
	}
	for i < len(obj) && obj[i] == '"' {
		kEnd, escaped := jsonx.StringEndEscaped(obj, i)
		if kEnd <= 0 || escaped || string(obj[i+1:kEnd-1]) == key {
			return false
		}
		i = skipSpaces(obj, kEnd)
		if i >= len(obj) || obj[i] != ':' {
			return false
		}
		end := jsonx.ValueEnd(obj, skipSpaces(obj, i+1))
		if end < 0 {
			return false
		}
		i = skipSpaces(obj, end)
		switch {
		case i < len(obj) && obj[i] == '}':
			return true
		case i >= len(obj) || obj[i] != ',':
			return false
		}
		i = skipSpaces(obj, i+1)
	}
	return false
}

func skipSpaces(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// Lookahead is what FrameFollowedBy reads of next, for a caller that must keep next
// until the frame before it is sanitized: a small line that FrameFollowedBy treats
// as it treats next (the stream and the first bytes of a delta; any other line
// stands for a frame that is no delta of any stream). A huge next frame is then
// never copied whole.
func Lookahead(next []byte) []byte {
	stream, raw, b64, ok := deltaRaw(next)
	if !ok {
		return []byte("{}")
	}
	return standIn(stream, raw, b64)
}

// lookaheadPrefix is Lookahead from the first bytes of a line longer than them, or
// ok false when they do not tell: the delta's stream, and enough of its start,
// must lie within them (a deltaBase64 must be read whole to know it is base64).
func lookaheadPrefix(start []byte) ([]byte, bool) {
	p, whole, found := memberPrefix(start, "params")
	if !found {
		msg, _, ok := memberPrefix(start, "msg")
		if !ok {
			return nil, false
		}
		if p, whole, found = memberPrefix(msg, "params"); !found {
			return nil, false
		}
	}
	if whole || len(p) == 0 || p[0] != '{' {
		return nil, false // a complete params: the line's end decides (deltaBase64, or no delta)
	}
	stream := stringValue(p, "itemId")
	d, whole, found := memberPrefix(p, "delta")
	if stream == "" || !found || whole || len(d) < 1+tailLen*6 || d[0] != '"' {
		return nil, false
	}
	return standIn(stream, d[1:], false), true
}

// standIn is the small line Lookahead keeps of a delta: its stream and the raw
// start of its text.
func standIn(stream string, raw []byte, b64 bool) []byte {
	key := "delta"
	if b64 {
		key = "deltaBase64"
		if bytes.IndexByte(raw, '\\') < 0 {
			// Whole groups of four characters decode to at least tailLen bytes.
			raw = raw[:min(len(raw), (tailLen+2)/3*4)]
		}
	} else {
		// Each escape decodes to at least one byte: tailLen*6 raw bytes hold tailLen
		// decoded ones, and the cut is not inside an escape.
		raw = raw[:escapeBoundary(raw, min(len(raw), tailLen*6))]
	}
	out := append([]byte(`{"params":{"itemId":`), jsonx.AppendString(nil, stream)...)
	out = append(append(append(out, `,"`+key+`":"`...), raw...), `"}}`...)
	return out
}
