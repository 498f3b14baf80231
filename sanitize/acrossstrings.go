package sanitize

import "bytes"

// FindsAcrossStrings reports whether a known secret shows in the raw text of a JSON
// message where no walk of the message's strings sees it: across a string's end (a
// form holding a quote) or outside every string (a form made only of what a number,
// a literal or the punctuation between values is made of). The sanitizer walks
// strings, so this is what its output can still hold of the guard's findings; the
// guard's scan of the raw line finds it. It costs nothing when no secret has such a
// form (the usual case). It is safe for concurrent use.
func (z *Sanitizer) FindsAcrossStrings(msg []byte) bool {
	for _, n := range z.structural {
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
