package sanitize

import (
	"bytes"
	"slices"

	"github.com/codexrec/codexrec/internal/jsonx"
)

// A delta of command output can be a hundred megabytes. When the line's prefilter
// saw nothing inside it (clean: no rule's literal, no escape that hides one, no base64
// run), the frame-level check that lets a clean line through untouched says the text
// holds nothing by itself either; what the stream adds can only cross its junctions
// with the previous and the next delta, and the edge heuristics read its ends. Such a
// delta is read at its two ends: a few kilobytes decoded, never a copy of the text.

// view is a delta's decoded text: whole (head and tail are both the text), or the
// first and last kilobytes of a huge clean one.
type view struct {
	head, tail []byte
	n          int // the length of the whole text
}

func whole(text []byte) view { return view{text, text, len(text)} }

// tailAt is where tail begins in the text.
func (v view) tailAt() int { return v.n - len(v.tail) }

const (
	// hugeDelta is the raw length from which a clean delta is read at its ends only.
	hugeDelta = 64 << 10
	// endLen is how many raw bytes are decoded at each end: a clean text's escapes
	// are two bytes each, so that is at least endLen/2 decoded bytes, more than the
	// junctions (tailLen) and the PEM check (128) read.
	endLen = 4 << 10
)

// ends returns the view of a huge clean delta's two ends, or ok false when the whole
// text must be decoded: it is short, base64, inside a PEM block, holds what decoding
// could turn into a literal the prefilter did not see (dashes of a PEM line, a
// keyword's tab separator), or has a token running past one of its ends.
func (z *Sanitizer) ends(raw []byte, escaped, b64, clean bool, stream string, st streamState, esc rawEscapes) (view, bool) {
	if !clean || b64 || st.pem || len(raw) < hugeDelta {
		return view{}, false
	}
	if bytes.Contains(raw, dashes) {
		return view{}, false
	}
	nesc, tabSep := esc.count(raw)
	if tabSep {
		return view{}, false
	}
	h, t := escapeBoundary(raw, endLen), escapeBoundary(raw, len(raw)-endLen)
	v := view{head: raw[:h], tail: raw[t:], n: len(raw)}
	if escaped {
		v.head = jsonx.AppendUnescapedBytes(make([]byte, 0, h), v.head)
		v.tail = jsonx.AppendUnescapedBytes(make([]byte, 0, len(raw)-t), v.tail)
		v.n -= nesc
	}
	if !z.holdsEdges(v, stream) {
		return view{}, false
	}
	return v, true
}

// escapesAndTabSeps counts the escapes of raw JSON string content and reports whether raw holds `\t:` or `\t=` (a tab
// before a keyword's separator, once decoded), in one pass over its backslashes:
// an escaped string of command output has one every few dozen bytes.
func escapesAndTabSeps(raw []byte) (n int, tabSep bool) {
	next := 0 // where the next escape may begin (escapes' counting)
	for i := 0; i < len(raw); {
		k := bytes.IndexByte(raw[i:], '\\')
		if k < 0 {
			break
		}
		p := i + k
		if p >= next {
			n++
			next = p + 2
		}
		if p+2 < len(raw) && raw[p+1] == 't' && (raw[p+2] == ':' || raw[p+2] == '=') {
			tabSep = true
		}
		i = p + 1
	}
	return n, tabSep
}

// rawEscapes answers escapesAndTabSeps for a string's raw content from the
// filter of the line holding it (see escsigns.go), or by a pass over it when f is nil.
type rawEscapes struct {
	f      *filter
	line   []byte
	lo, hi int // raw is line[lo:hi]
}

func (r rawEscapes) count(raw []byte) (int, bool) {
	if r.f == nil {
		return escapesAndTabSeps(raw)
	}
	return r.f.escapesIn(r.line, r.lo, r.hi)
}

// holdsEdges reports whether everything the edge heuristics (edgeSpans, shapeEdges)
// read of the text lies within v's ends: each known secret's piece, and the tokens
// that begin and end it.
func (z *Sanitizer) holdsEdges(v view, stream string) bool {
	shortest := min(len(v.head), len(v.tail))
	if shortest < tailLen {
		return false
	}
	for _, forms := range z.edges {
		if slices.ContainsFunc(forms, func(f []byte) bool { return len(f) > shortest }) {
			return false
		}
	}
	notToken := func(b []byte) bool { return slices.ContainsFunc(b, func(c byte) bool { return !isTokenByte(c) }) }
	z.mu.Lock()
	_, open := z.openEdges[stream]
	z.mu.Unlock()
	return (!open || notToken(v.head)) && notToken(v.tail)
}
