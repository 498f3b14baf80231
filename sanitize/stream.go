package sanitize

import (
	"encoding/base64"
	"slices"
)

// Streamed output (item/*/delta, command/exec deltaBase64) is cut wherever a pipe was
// read, so a secret can begin in one delta and end in the next. Each delta is
// searched in a window: the end of the stream's previous delta (kept, bounded, per
// stream), the delta itself, and the start of the next delta of the same stream when
// the caller looked one frame ahead (FrameFollowedBy). Whatever part of a secret the
// window shows inside the delta is replaced, with the placeholder of the whole
// secret. A PEM private key is redacted from its BEGIN line to its END line across
// any number of deltas: the stream remembers that a block is open.

// tailLen bounds the context kept per stream and taken from the next delta.
const tailLen = 512

// maxStreams bounds the streams remembered; past it the oldest context is dropped.
const maxStreams = 4096

// streamState is what the sanitizer remembers of one delta stream.
type streamState struct {
	tail []byte // the last tailLen bytes of the stream's text, as it crossed
	pem  bool   // a private key block began and has not ended
	// hot: the tail may hold the start of a secret (a prefilter hit or a base64
	// run), so the next delta must be searched with it.
	hot bool
}

// lookahead is the next frame, when the caller looked ahead; its delta's stream and
// text are read only when a delta needs them.
type lookahead struct {
	next   []byte
	parsed bool
	stream string
	text   []byte
}

func (la *lookahead) delta() (stream string, text []byte) {
	if !la.parsed {
		la.parsed = true
		// Only the start of the next delta is read (the right of the window).
		if s, raw, b64, ok := deltaRaw(la.next); ok {
			la.stream, la.text = s, deltaPrefix(raw, b64, tailLen)
		}
	}
	return la.stream, la.text
}

// FrameFollowedBy is FrameClassified for a delta frame whose successor in the
// recording is known: next is the following frame's line. When next is a delta of the
// same stream, a secret cut between the two is redacted in line's part now and in
// next's part when next is sanitized. A tap that looks one frame ahead calls it (it
// never delays forwarding, only the writing of the recorded copy).
func (z *Sanitizer) FrameFollowedBy(line []byte, isJSON bool, next []byte) ([]byte, []Redaction) {
	la := &lookahead{next: next}
	content := line
	if n := len(content); n > 0 && content[n-1] == '\n' {
		content = content[:n-1]
	}
	return z.frameWith(line, content, func() bool { return isJSON }, la)
}

// stream is what the sanitizer remembers of a stream. Its tail is shared with the
// stored state: a tail is never modified in place, only replaced (see deltaString).
func (z *Sanitizer) stream(name string) streamState {
	z.mu.Lock()
	defer z.mu.Unlock()
	return z.streams[name]
}

func (z *Sanitizer) setStream(name string, st streamState) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if _, ok := z.streams[name]; !ok && len(z.streams) >= maxStreams {
		clear(z.streams)
	}
	z.streams[name] = st
}

// streamsOpen reports whether any stream has context that a delta must be searched
// with.
func (z *Sanitizer) streamsOpen() bool {
	z.mu.Lock()
	defer z.mu.Unlock()
	return len(z.streams) > 0 || len(z.openEdges) > 0
}

// deltaString sanitizes the content of a delta string (raw JSON content, escaped or
// not, or base64) of stream, in the window described above. It returns what changes
// (nil both when nothing does): the new raw content of a base64 delta, else the edits
// of raw (spans in raw offsets); and the spans replaced, in decoded coordinates,
// each with the whole value it hid (for previews).
//
// shortOnly says a huge delta is clean but for literals whose tokens are too short
// (filter.cleanButShortTokens): it is read at its ends as a clean one is, unless its
// last token may run on into the next delta (then its end is searched with the
// token continued, see continuedSpans) or a private key begun in the stream's past
// reaches into it (then the key runs to its END line): both need the whole text.
func (z *Sanitizer) deltaString(raw []byte, escaped, b64, cold, clean, shortOnly bool, stream string, la *lookahead, esc rawEscapes) (repl []byte, edits, replaced []span) {
	st := z.stream(stream)
	var right []byte
	sameStream := false
	if la != nil {
		ns, nt := la.delta()
		if sameStream = ns == stream; sameStream {
			right = nt[:min(len(nt), tailLen)]
		}
	}
	short := shortOnly && !clean && len(raw) > 0 && !(isTokenByte(raw[len(raw)-1]) && nextContinues(la, stream))
	// A huge clean delta is read at its two ends only: see ends.
	v, partial := z.ends(raw, escaped, b64, clean || short, stream, st, esc)
	var junctions []span // a partial view's spans
	if partial {
		junctions = z.junctionSpans(st.tail, v, right, nil)
		if !clean && slices.ContainsFunc(junctions, func(s span) bool { return s.rule == "private-key" && s.start == 0 }) {
			partial, junctions = false, nil
		}
	}
	enc := base64.StdEncoding
	if !partial {
		var text []byte
		switch {
		case b64:
			if len(raw)%4 != 0 {
				enc = base64.RawStdEncoding
			}
			dec, err := enc.AppendDecode(nil, raw)
			if err != nil {
				return nil, nil, nil
			}
			text = dec
		case escaped:
			text, _ = unescape(raw, nil)
		default:
			text = raw
		}
		v = whole(text)
	}
	var spans []span
	big := v.n > 2*tailLen // a partial view is always big
	hot := big
	if !hot && !(st.hot && v.n < tailLen) {
		// (A hot tail the text is too short to push out stays hot, and is searched
		// with the text whatever the window shows: nothing here depends on it then.)
		hot = z.windowHot(st.tail, v.head, right, cold)
	}
	switch {
	case partial:
		// Clean: the text holds nothing itself; only its junctions can.
		spans = junctions
	case st.hot || hot:
		spans = z.windowSpans(st.tail, v.head, right)
	}
	if !partial {
		// A key block begun in the stream's past (its BEGIN line cut by the delta's
		// start) runs to its END line, not to where a window around the junction ends.
		for i := range spans {
			if sp := &spans[i]; sp.rule == "private-key" && sp.start == 0 {
				e := pemEnd(v.head)
				if e < 0 {
					e = v.n
				}
				sp.end = max(sp.end, e)
			}
		}
	}
	if st.pem {
		// A block opened in an earlier delta: everything up to its END line is key.
		// (Never partial: ends reads the whole text then.)
		text := v.head
		e := len(text)
		var junction [128]byte
		if k := pemEnd(append(append(junction[:0], st.tail[max(0, len(st.tail)-64):]...), text[:min(len(text), 64)]...)); k >= 0 {
			e = min(e, max(0, k-min(len(st.tail), 64)))
		} else if k := pemEnd(text); k >= 0 {
			e = k
		}
		if e > 0 && !onlyPlaceholders(text[:e]) {
			spans = append(spans, span{0, e, "private-key", z.placeholder("private-key", text[:e]), text[:e]})
		}
	}
	if sameStream && len(right) < tailLen && len(right) > 0 && v.n > 0 && isTokenByte(v.tail[len(v.tail)-1]) && allTokenBytes(right) {
		// The next delta is all one token with this one's end: where the token ends
		// is not known (a third delta may go on), as when the next is unknown.
		sameStream = false
		if !partial && (st.hot || hot) {
			spans = append(spans, z.continuedSpans(st.tail, v.head, right)...)
		}
	}
	if !sameStream {
		// The next delta of this stream is unknown: fall back to the edge heuristics.
		spans = z.edgeSpans(v, spans)
		spans = z.shapeEdges(stream, v, spans)
	} else {
		z.mu.Lock()
		delete(z.openEdges, stream)
		z.mu.Unlock()
	}
	spans = resolve(spans, 0)
	// A partial view has no dashes beyond its head (see ends): pemOpen of the whole
	// text would keep what its start says.
	var seen [tailLen + 128]byte // on the stack: the tail and the text's start
	st.pem = pemOpen(append(append(seen[:0], st.tail...), v.head[:min(len(v.head), 128)]...), st.pem)
	if !partial {
		st.pem = pemOpen(v.head, st.pem)
	}
	// The new tail is a new slice: the old one may be read by a caller of stream.
	if v.n >= tailLen {
		st.tail = concat(nil, v.tail[len(v.tail)-tailLen:])
	} else {
		st.tail = concat(st.tail[max(0, len(st.tail)+len(v.tail)-tailLen):], v.tail)
	}
	// The tail stays hot while what made it so is still in it.
	st.hot = hot || st.hot && v.n < tailLen
	z.setStream(stream, st)
	if len(spans) == 0 {
		return nil, nil, nil
	}
	switch {
	case b64:
		return enc.AppendEncode(nil, rewrite(nil, v.head, nil, spans)), nil, spans
	case escaped:
		return nil, rawSpans(raw, spans), spans
	default:
		return nil, spans, spans
	}
}

// nextContinues reports whether la's delta is of stream and all token bytes, shorter
// than tailLen: then a token ending the current delta may go on in it.
func nextContinues(la *lookahead, stream string) bool {
	if la == nil {
		return false
	}
	ns, nt := la.delta()
	right := nt[:min(len(nt), tailLen)]
	return ns == stream && len(right) > 0 && len(right) < tailLen && allTokenBytes(right)
}

func concat(a, b []byte) []byte {
	return append(append(make([]byte, 0, len(a)+len(b)), a...), b...)
}

func concat3(a, b, c []byte) []byte {
	return append(append(append(make([]byte, 0, len(a)+len(b)+len(c)), a...), b...), c...)
}

// windowSpans finds the secrets of text, including those only the context shows:
// begun in left (the stream so far) or continued in right (the next delta). Spans
// are in text's coordinates, clipped to it, each carrying the whole value. A long
// text is searched alone and at its two junctions, never copied whole.
func (z *Sanitizer) windowSpans(left, text, right []byte) []span {
	n := len(text)
	all := func(span) bool { return true }
	if len(left)+len(right) == 0 {
		spans, _ := z.spansIn(text, 0, n, all, nil)
		return spans
	}
	if n <= 2*tailLen {
		w := concat3(left, text, right)
		// The guard reads the delta in the same window (of the sanitized stream): what
		// the window shows is what both see.
		spans, _ := z.spansIn(w, len(left), n, func(s span) bool { return s.end > len(left) && s.start < len(left)+n }, nil)
		return spans
	}
	spans, _ := z.spansIn(text, 0, n, all, nil)
	return z.junctionSpans(left, whole(text), right, spans)
}

// junctionSpans adds to spans the secrets that cross the junctions of a long text
// (v.n > 2*tailLen) with left and right, in the text's coordinates: only its first
// and last tailLen bytes are read.
func (z *Sanitizer) junctionSpans(left []byte, v view, right []byte, spans []span) []span {
	if len(left) > 0 {
		spans, _ = z.spansIn(concat(left, v.head[:tailLen]), len(left), v.n, func(s span) bool { return s.start < len(left) && s.end > len(left) }, spans)
	}
	if len(right) > 0 {
		off := v.n - tailLen
		spans, _ = z.spansIn(concat(v.tail[len(v.tail)-tailLen:], right), -off, v.n, func(s span) bool { return s.start < tailLen && s.end > tailLen }, spans)
	}
	return spans
}

// spansIn adds to spans those found in w, whose text (n bytes) begins at w[off],
// that keep says belong to the text, in its coordinates. hot says whether the
// prefilter let any rule or known secret be tried at all.
func (z *Sanitizer) spansIn(w []byte, off, n int, keep func(s span) bool, spans []span) (_ []span, hot bool) {
	f := z.filterFor(w, false).text()
	hot = !f.empty()
	found := z.find(w, &f, nil, false)
	found = z.base64Spans(w, found, false, 0)
	for _, s := range found {
		if s.rule == "" || !keep(s) {
			continue
		}
		a, b := max(s.start-off, 0), min(s.end-off, n)
		if b > a {
			spans = append(spans, span{a, b, s.rule, s.repl, w[s.start:s.end]})
		}
	}
	return spans, hot
}

// junctionEdge is how far on each side of a junction between deltas windowHot
// looks for a literal crossing it: at least the longest literal of the prefilter
// (gitleaks' bundle_enterprise__contribsys__com is 34 bytes; at 32, that keyword
// cut after its 33rd byte left its secret in the next delta unsearched).
const junctionEdge = 48

// windowHot reports whether anything can match in the window around text beyond
// what a cold tail holds: a literal crossing into text (the tail's last bytes), in
// text, or in the next delta's start.
// When text is known to hold nothing itself (cold), only the junctions are scanned.
func (z *Sanitizer) windowHot(tail, text, right []byte, cold bool) bool {
	const edge = junctionEdge
	if cold && len(text) > 2*edge {
		for _, w := range [][]byte{concat(tail[max(0, len(tail)-edge):], text[:edge]), concat(text[len(text)-edge:], right)} {
			if f := z.filterFor(w, false); !f.empty() || hasB64Run(w) {
				return true
			}
		}
		return false
	}
	w := concat3(tail[max(0, len(tail)-edge):], text, right)
	f := z.filterFor(w, false)
	return !f.empty() || hasB64Run(w)
}

func allTokenBytes(b []byte) bool {
	for _, c := range b {
		if !isTokenByte(c) {
			return false
		}
	}
	return true
}

// contPad is how far continuedSpans continues a token, contLook how far before it
// it reads.
const contPad, contLook = 32, 320

// continuedSpans finds the secrets of text that end in a token running on through
// right (the next delta, all token bytes) and maybe past it: the window is searched
// once more with the token continued by its own letters and digits, so that a rule
// needing a longer value than the two deltas show (vault login's 20 characters) finds
// this delta's part. Each span gets the placeholder of what the window really shows.
// Spans are in text's coordinates.
func (z *Sanitizer) continuedSpans(left, text, right []byte) []span {
	n := len(text)
	end := concat(text[max(0, n-tailLen):], right)
	i := len(end)
	for i > 0 && isTokenByte(end[i-1]) {
		i--
	}
	var pad []byte
	for len(pad) < contPad {
		k := len(pad)
		for _, c := range end[i:] {
			if isWordByte(c) && c != '_' && len(pad) < contPad {
				pad = append(pad, c)
			}
		}
		if len(pad) == k {
			return nil // no letter or digit to go on with
		}
	}
	// The window: the token and the contLook bytes before it (context rules look no
	// further back), the next delta and the pad.
	var w []byte
	off := 0
	if n <= 2*tailLen {
		w, off = concat3(left, text, right), len(left)
	} else {
		w, off = concat(text[n-tailLen:], right), tailLen-n // its right junction
	}
	tok := len(w) - (len(end) - i)
	if cut := max(0, tok-contLook); cut > 0 {
		w, off = w[cut:], off-cut
	}
	real := len(w)
	w = append(w, pad...)
	f := z.filterFor(w, false).text()
	if f.empty() {
		return nil
	}
	found := z.find(w, &f, nil, false)
	found = z.base64Spans(w, found, false, 0)
	var spans []span
	for _, s := range found {
		a, b := max(s.start-off, 0), min(s.end-off, n)
		if s.rule == "" || b <= a || s.end-off < n {
			continue // a path, outside text, or ending inside it (found without pad)
		}
		val := w[s.start:min(s.end, real)]
		spans = append(spans, span{a, b, s.rule, z.placeholder(s.rule, val), val})
	}
	return spans
}
