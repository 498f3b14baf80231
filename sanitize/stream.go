package sanitize

import (
	"encoding/base64"

	"github.com/tidwall/gjson"
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
		if s, t, ok := deltaText(la.next); ok {
			la.stream, la.text = s, t
		}
	}
	return la.stream, la.text
}

// deltaText returns the stream and decoded text of a delta frame (item/*/delta's
// params.delta, command/exec/outputDelta's params.deltaBase64), or ok false for any
// other line. A recording's frame entry (the message under "msg") counts too.
func deltaText(line []byte) (stream string, text []byte, ok bool) {
	p := gjson.GetBytes(line, "params")
	if !p.Exists() {
		p = gjson.GetBytes(line, "msg.params")
	}
	if !p.IsObject() {
		return "", nil, false
	}
	r := p.Get("itemId")
	stream = r.Str
	if stream == "" {
		if pid := p.Get("processId").Str; pid != "" {
			stream = pid + "/" + p.Get("stream").Str
		}
	}
	if stream == "" {
		return "", nil, false
	}
	if d := p.Get("delta"); d.Type == gjson.String {
		return stream, []byte(d.Str), true
	}
	if d := p.Get("deltaBase64"); d.Type == gjson.String {
		dec, err := base64.StdEncoding.DecodeString(d.Str)
		if err != nil {
			return "", nil, false
		}
		return stream, dec, true
	}
	return "", nil, false
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

func (z *Sanitizer) stream(name string) streamState {
	z.mu.Lock()
	defer z.mu.Unlock()
	st := z.streams[name]
	st.tail = append([]byte(nil), st.tail...)
	return st
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
// not, or base64) of stream, in the window described above. It returns the new raw
// content (nil when unchanged) and the spans replaced, in decoded coordinates, each
// with the whole value it hid (for previews).
func (z *Sanitizer) deltaString(raw []byte, escaped, b64, cold bool, stream string, la *lookahead) ([]byte, []span) {
	var text []byte
	enc := base64.StdEncoding
	switch {
	case b64:
		if len(raw)%4 != 0 {
			enc = base64.RawStdEncoding
		}
		dec, err := enc.AppendDecode(nil, raw)
		if err != nil {
			return nil, nil
		}
		text = dec
	case escaped:
		text, _ = unescape(raw, nil)
	default:
		text = raw
	}
	st := z.stream(stream)
	var right []byte
	sameStream := false
	if la != nil {
		ns, nt := la.delta()
		if sameStream = ns == stream; sameStream {
			right = nt[:min(len(nt), tailLen)]
		}
	}
	var spans []span
	big := len(text) > 2*tailLen
	hot := big || z.windowHot(st.tail, text, right, cold)
	if st.hot || hot {
		spans = z.windowSpans(st.tail, text, right)
	}
	if st.pem {
		// A block opened in an earlier delta: everything up to its END line is key.
		e := len(text)
		if k := pemEnd(concat(st.tail[max(0, len(st.tail)-64):], text[:min(len(text), 64)])); k >= 0 {
			e = min(e, max(0, k-min(len(st.tail), 64)))
		} else if k := pemEnd(text); k >= 0 {
			e = k
		}
		if e > 0 {
			spans = append(spans, span{0, e, "private-key", z.placeholder("private-key", text[:e]), text[:e]})
		}
	}
	if !sameStream {
		// The next delta of this stream is unknown: fall back to the edge heuristics.
		spans = z.edgeSpans(text, spans)
		spans = z.shapeEdges(stream, text, spans)
	} else {
		z.mu.Lock()
		delete(z.openEdges, stream)
		z.mu.Unlock()
	}
	spans = resolve(spans, 0)
	st.pem = pemOpen(text, pemOpen(concat(st.tail, text[:min(len(text), 128)]), st.pem))
	if len(text) >= tailLen {
		st.tail = append(st.tail[:0], text[len(text)-tailLen:]...)
	} else {
		st.tail = append(st.tail, text...)
		st.tail = append([]byte(nil), st.tail[max(0, len(st.tail)-tailLen):]...)
	}
	// The tail stays hot while what made it so is still in it.
	st.hot = hot || st.hot && len(text) < tailLen
	z.setStream(stream, st)
	if len(spans) == 0 {
		return nil, nil
	}
	switch {
	case b64:
		return enc.AppendEncode(nil, rewrite(nil, text, nil, spans)), spans
	case escaped:
		return rewrite(nil, raw, nil, rawSpans(raw, spans)), spans
	default:
		return rewrite(nil, raw, nil, spans), spans
	}
}

func concat(a, b []byte) []byte {
	return append(append(make([]byte, 0, len(a)+len(b)), a...), b...)
}

// windowSpans finds the secrets of text, including those only the context shows:
// begun in left (the stream so far) or continued in right (the next delta). Spans
// are in text's coordinates, clipped to it, each carrying the whole value. A long
// text is searched alone and at its two junctions, never copied whole.
func (z *Sanitizer) windowSpans(left, text, right []byte) []span {
	var spans []span
	// search adds the spans found in w, whose text[0] is at w[off], that keep says
	// belong to this text.
	search := func(w []byte, off int, keep func(s span) bool) {
		f := z.filterFor(w, false).text()
		found := z.find(w, &f, nil, false)
		found = z.base64Spans(w, found, false, 0)
		for _, s := range found {
			if s.rule == "" || !keep(s) {
				continue
			}
			a, b := max(s.start-off, 0), min(s.end-off, len(text))
			if b > a {
				spans = append(spans, span{a, b, s.rule, s.repl, w[s.start:s.end]})
			}
		}
	}
	n := len(text)
	if n <= 2*tailLen || len(left)+len(right) == 0 {
		w := text
		if len(left)+len(right) > 0 {
			w = concat(concat(left, text), right)
		}
		search(w, len(left), func(s span) bool { return s.end > len(left) && s.start < len(left)+n })
		return spans
	}
	search(text, 0, func(span) bool { return true })
	if len(left) > 0 {
		search(concat(left, text[:tailLen]), len(left), func(s span) bool { return s.start < len(left) && s.end > len(left) })
	}
	if len(right) > 0 {
		search(concat(text[n-tailLen:], right), -(n - tailLen), func(s span) bool { return s.start < tailLen && s.end > tailLen })
	}
	return spans
}

// windowHot reports whether anything can match in the window around text beyond
// what a cold tail holds: a literal crossing into text (the tail's last bytes), in
// text, or in the next delta's start.
// When text is known to hold nothing itself (cold), only the junctions are scanned.
func (z *Sanitizer) windowHot(tail, text, right []byte, cold bool) bool {
	const edge = 32 // longer than any rule literal
	if cold && len(text) > 2*edge {
		for _, w := range [][]byte{concat(tail[max(0, len(tail)-edge):], text[:edge]), concat(text[len(text)-edge:], right)} {
			if f := z.filterFor(w, false); !f.empty() || hasB64Run(w) {
				return true
			}
		}
		return false
	}
	w := concat(concat(tail[max(0, len(tail)-edge):], text), right)
	f := z.filterFor(w, false)
	return !f.empty() || hasB64Run(w)
}
