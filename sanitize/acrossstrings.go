package sanitize

import (
	"bytes"

	"github.com/codexrec/codexrec/internal/jsonx"
)

// FindsAcrossStrings reports whether a known secret shows in the raw text of a JSON
// message where no walk of the message's strings sees it: across a string's end (a
// form holding a quote) or outside every string (a form made only of what a number,
// a literal or the punctuation between values is made of). The sanitizer walks
// strings, so this is what its output can still hold of the guard's findings; the
// guard's scan of the raw line finds it. It costs nothing when no secret has such a
// form (the usual case). It is safe for concurrent use.
func (z *Sanitizer) FindsAcrossStrings(msg []byte) bool {
	for _, n := range z.acrossForms {
		if bytes.Contains(msg, n) {
			return true
		}
	}
	return false
}

// acrossStrings says whether a secret's form can show in a JSON text where no walk of
// its strings sees it (see FindsAcrossStrings): it holds a quote, which only ends a
// string in a JSON text, or every byte of it may stand outside a string.
func acrossStrings(form []byte) bool {
	if bytes.IndexByte(form, '"') >= 0 {
		return true
	}
	for _, c := range form {
		if !outsideStrings[c] {
			return false
		}
	}
	return true
}

// outsideStrings are the bytes a JSON text holds outside its strings: numbers,
// the literals true, false and null, punctuation and whitespace.
var outsideStrings = func() (t [256]bool) {
	for _, c := range []byte("0123456789+-.eE" + "truefalsn" + "{}[],:" + " \t\r\n") {
		t[c] = true
	}
	return t
}()

// wholeNumbers replaces each number of a recording line's message ("msg") that
// holds a known secret (FindsAcrossStrings: one only a number can show) with a
// string, the placeholder (rule guard-unlocated): a known secret written as a number
// has no string to be redacted in. The entry's own numbers (seq, t) are left.
func (z *Sanitizer) wholeNumbers(b []byte) []byte {
	start := bytes.Index(b, []byte(`,"msg":`))
	if start < 0 || len(z.acrossForms) == 0 {
		return b
	}
	if out, _ := z.secretNumbers(b, start+len(`,"msg":`), "guard-unlocated", nil); out != nil {
		return out
	}
	return b
}

// secretNumbers replaces each number of the JSON text b, from offset from on, that
// holds a form of a known secret a number can show (FindsAcrossStrings) with a
// string, rule's placeholder, and adds a Redaction for each to reds. It returns nil
// when it replaced nothing.
func (z *Sanitizer) secretNumbers(b []byte, from int, rule string, reds []Redaction) ([]byte, []Redaction) {
	var out []byte
	last := 0
	for i := from; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			e := jsonx.StringEnd(b, i)
			if e < 0 {
				i = len(b) // an unclosed string: no number after it
				continue
			}
			i = e - 1
			continue
		case c != '-' && (c < '0' || c > '9'):
			continue
		}
		j := i
		for j < len(b) && numberByte[b[j]] {
			j++
		}
		if num := b[i:j]; z.FindsAcrossStrings(num) {
			p := z.placeholder(rule, num)
			out = append(out, b[last:i]...)
			out = append(out, '"')
			out = append(out, p...)
			out = append(out, '"')
			last = j
			reds = append(reds, Redaction{Rule: rule, Placeholder: p, preview: Mask(num)})
		}
		i = j - 1
	}
	if out == nil {
		return nil, reds
	}
	return append(out, b[last:]...), reds
}

// numberByte are the bytes of a JSON number.
var numberByte = func() (t [256]bool) {
	for _, c := range []byte("0123456789+-.eE") {
		t[c] = true
	}
	return t
}()
