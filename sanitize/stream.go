package sanitize

import (
	"bytes"
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
}

// lookahead is the text of the next delta frame, when the caller looked ahead.
type lookahead struct {
	stream string
	text   []byte
}

// DeltaText returns the stream and decoded text of a delta frame (item/*/delta's
// params.delta, command/exec/outputDelta's params.deltaBase64), or ok false for any
// other line. A recording's frame entry (the message under "msg") counts too.
func DeltaText(line []byte) (stream string, text []byte, ok bool) {
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
	la := &lookahead{}
	if s, t, ok := DeltaText(next); ok {
		la.stream, la.text = s, t
	}
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
// content (nil when unchanged) and the spans replaced, in decoded coordinates, with
// the values they hid (for previews).
func (z *Sanitizer) deltaString(raw []byte, escaped, b64 bool, stream string, la *lookahead) ([]byte, []span, [][]byte) {
	var text []byte
	var offs []int
	enc := base64.StdEncoding
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
		text, offs = unescape(raw, make([]int, 0, len(raw)+1))
	default:
		text = raw
	}
	st := z.stream(stream)
	var right []byte
	if la != nil && la.stream == stream {
		right = la.text[:min(len(la.text), tailLen)]
	}
	window := make([]byte, 0, len(st.tail)+len(text)+len(right))
	window = append(append(append(window, st.tail...), text...), right...)
	L, R := len(st.tail), len(st.tail)+len(text)

	f := z.filterFor(window, false).text()
	found := z.find(window, &f, nil, false)
	found = z.base64Spans(window, found, false, 0)
	var spans []span
	var values [][]byte
	for _, s := range found {
		if s.end <= L || s.start >= R || s.rule == "" {
			continue
		}
		spans = append(spans, span{max(s.start, L) - L, min(s.end, R) - L, s.rule, s.repl})
		values = append(values, window[s.start:s.end])
	}
	if st.pem {
		// A block opened in an earlier delta: everything up to its END line is key.
		end := pemEnd(window)
		e := R
		if end >= 0 {
			e = min(end, R)
		}
		if e > L {
			v := window[L:e]
			spans = append(spans, span{0, e - L, "private-key", z.placeholder("private-key", v)})
			values = append(values, v)
		}
	}
	if la == nil || la.stream != stream {
		// The next delta of this stream is unknown: fall back to the edge heuristics.
		spans = z.edgeSpans(text, spans)
		spans = z.shapeEdges(stream, text, spans)
	} else {
		z.mu.Lock()
		delete(z.openEdges, stream)
		z.mu.Unlock()
	}
	spans = resolve(spans, 0)
	st.pem = pemOpen(window[:R], st.pem)
	seen := window[:R]
	st.tail = append([]byte(nil), seen[max(0, len(seen)-tailLen):]...)
	z.setStream(stream, st)
	if len(spans) == 0 {
		return nil, nil, nil
	}
	var repl []byte
	switch {
	case b64:
		repl = enc.AppendEncode(nil, rewrite(nil, text, nil, spans))
	case escaped:
		repl = rewrite(nil, raw, offs, spans)
	default:
		repl = rewrite(nil, raw, nil, spans)
	}
	return repl, spans, values
}

var (
	pemBegin = []byte("-----BEGIN")
	pemEndB  = []byte("-----END")
	dashes   = []byte("-----")
)

// pemEnd returns the offset just past the first END line's closing dashes in w, or -1.
func pemEnd(w []byte) int {
	i := bytes.Index(w, pemEndB)
	if i < 0 {
		return -1
	}
	j := bytes.Index(w[i+len(pemEndB):], dashes)
	if j < 0 {
		return -1
	}
	return i + len(pemEndB) + j + len(dashes)
}

// pemOpen says whether a private key block is open at the end of seen: its last
// BEGIN ... PRIVATE KEY line comes after its last END line; with neither, it stays
// as it was.
func pemOpen(seen []byte, was bool) bool {
	b := -1
	for off := 0; ; {
		i := bytes.Index(seen[off:], pemBegin)
		if i < 0 {
			break
		}
		i += off
		off = i + len(pemBegin)
		if k := bytes.IndexByte(seen[off:min(len(seen), off+80)], '\n'); true {
			hdr := seen[off:min(len(seen), off+80)]
			if k >= 0 {
				hdr = hdr[:k]
			}
			if bytes.Contains(hdr, []byte("PRIVATE KEY")) {
				b = i
			}
		}
	}
	e := bytes.LastIndex(seen, pemEndB)
	switch {
	case b < 0 && e < 0:
		return was
	case b > e:
		return true
	default:
		return false
	}
}
