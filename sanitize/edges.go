package sanitize

import (
	"github.com/tidwall/gjson"
)

// Streamed output is cut wherever the pipe was read, so a token shaped like a secret
// (sk-..., ghp_..., eyJ...) can begin one delta and end the next, and neither piece
// matches a shape rule. shapeEdges closes that gap without holding frames back: a
// delta that ends inside a token starting with a rule's literal has the token replaced
// (the rest may follow), and the stream is marked, so that the token characters the
// next delta of the same stream begins with are replaced too. A harmless word cut at
// the end of a delta costs a placeholder; a secret costs nothing.

// deltaStream names the stream a delta frame belongs to: its item, or its process and
// output stream (command/exec).
func deltaStream(line []byte) string {
	for i, p := range deltaStreamPaths {
		if i == 0 && lacksMember(line, "params") {
			// A recording's frame entry: gjson would read the whole line to find no
			// params at its top.
			continue
		}
		// itemId alone first: it precedes a long delta in the server's messages, and
		// gjson stops at it.
		if id := gjson.GetBytes(line, p[0]); id.Str != "" {
			return id.Str
		}
		if r := gjson.GetManyBytes(line, p[1], p[2]); r[0].Str != "" {
			return r[0].Str + "/" + r[1].Str
		}
	}
	return ""
}

// deltaStreamPaths are the paths deltaStream reads, in a frame and in a
// recording's frame entry.
var deltaStreamPaths = [][3]string{
	{"params.itemId", "params.processId", "params.stream"},
	{"msg.params.itemId", "msg.params.processId", "msg.params.stream"},
}

// shapeEdges adds to spans the pieces of secret-shaped tokens at the edges of delta
// text of stream (see above).
func (z *Sanitizer) shapeEdges(stream string, v view, spans []span) []span {
	n := len(spans)
	spans = z.shapeEdgeSpans(stream, v, spans)
	if len(spans) > n {
		return resolve(spans, 0) // sorted, without overlaps, as rewrite needs
	}
	return spans
}

// shapeEdgeSpans reads the token at each end of the text: it must lie within v's ends
// (see view.holdsEdges).
func (z *Sanitizer) shapeEdgeSpans(stream string, v view, spans []span) []span {
	if stream == "" {
		return spans
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	head, tail, off := v.head, v.tail, v.tailAt()
	lead := 0
	if rule, open := z.openEdges[stream]; open {
		delete(z.openEdges, stream)
		for lead < len(head) && isTokenByte(head[lead]) {
			lead++
		}
		if lead > 0 {
			spans = append(spans, span{0, lead, rule, z.placeholder(rule, head[:lead]), nil})
		}
		if lead == v.n {
			z.openEdges[stream] = rule // the token runs on past this delta too
			return spans
		}
	}
	// In tail's coordinates: the token at the end, after the one at the start.
	start, floor := len(tail), max(0, lead-off)
	for start > floor && isTokenByte(tail[start-1]) {
		start--
	}
	// The token at the end starts with a rule's literal at a word boundary inside
	// that run (KEY=sk-..., the run being "KEY=sk-..."), as the rules' matches do
	// (wordStart: after \n in raw content too), or with one of gitleaks' prefixes
	// (npm_, glpat-...) at its first occurrence (see edgeLiteral).
	skip := -1
	if lead > 0 {
		skip = lead - off
	}
	best, bestRule := z.edgeLiteral(tail, start, skip)
	if best < 0 {
		return spans
	}
	z.openEdges[stream] = bestRule
	return append(spans, span{best + off, v.n, bestRule, z.placeholder(bestRule, tail[best:]), nil})
}

// edgesOpen reports whether a stream's last delta ended inside a secret-shaped token,
// so frames without any literal must still be looked at.
func (z *Sanitizer) edgesOpen() bool {
	z.mu.Lock()
	defer z.mu.Unlock()
	return len(z.openEdges) > 0
}

// ForgetStreams drops what the sanitizer remembers of its streams (an edge left
// open by a delta that ended inside a secret-shaped token, a private key block begun
// on an earlier line of the text stream), as at the start of a session.
func (z *Sanitizer) ForgetStreams() {
	z.mu.Lock()
	defer z.mu.Unlock()
	clear(z.openEdges)
	clear(z.streams)
	z.textPEM.Store(0)
}
