package sanitize

import (
	"bytes"
	"encoding/base64"
	"sync"

	"github.com/tidwall/gjson"
)

// jsonFrame rewrites the strings of a valid JSON text that hold secrets or mapped
// paths; it returns nil when nothing changed. Every byte outside a replaced span is
// copied as it was.
func (z *Sanitizer) jsonFrame(b []byte, lineFilter filter, la *lookahead) ([]byte, []Redaction) {
	var secretAnswers map[string]bool
	if lineFilter.answers {
		secretAnswers = z.secretAnswersFor(b)
	}
	// Field rules apply only where the prefilter saw one of their keys (or where an
	// escape could spell one differently).
	// Whether the line holds a \u or \/ escape, when asked (0 unknown, 1 no, 2 yes):
	// a string of a line without one has none either.
	lineHidden := 0
	hiddenIn := func(start, end int) bool {
		if lineHidden == 1 {
			return false
		}
		return lineFilter.hiddenIn(b, start, end)
	}
	fields := lineFilter.fields
	if !fields {
		lineHidden = 1
		if lineFilter.hiddenIn(b, 0, len(b)) {
			fields, lineHidden = true, 2
		}
	}
	var (
		out   []byte
		last  int
		reds  []Redaction
		spans []span
	)
	// The walker (its path's storage) is reused from frame to frame.
	w := walkers.Get().(*walker)
	defer func() {
		if cap(w.stack) <= 64 { // a deeply nested frame's path is not kept
			clear(w.stack[:cap(w.stack)]) // its keys point into b
			walkers.Put(w)
		}
	}()
	// cmdHits are gitleaks' keywords in the "command" of the object being walked
	// (context for its output, see crossFieldSpans), cmdDepth its depth.
	var cmdHits []hit
	cmdDepth := -1
	stream, streamKnown := "", false
	streamOf := func() string {
		if !streamKnown {
			stream, streamKnown = deltaStream(b), true
		}
		return stream
	}
	w.walk(b, func(t token) {
		raw := b[t.start:t.end]
		// The new raw content of the string, when it changes: repl whole, or raw with
		// edits (spans in raw offsets) written straight into out, not copied twice.
		var repl []byte
		var edits []span
		spans = spans[:0]
		src := raw // what the spans' offsets index

		if cmdDepth >= 0 && len(w.stack) < cmdDepth {
			cmdHits, cmdDepth = cmdHits[:0], -1 // left the object
		}
		var ctx []hit
		if !t.isKey && len(lineFilter.glHits) > 0 {
			switch key := string(w.memberKey()); {
			case key == "command" || string(w.parentKey()) == "command" && w.top().array:
				d := len(w.stack)
				if key != "command" {
					d--
				}
				if d != cmdDepth {
					cmdHits = cmdHits[:0]
				}
				cmdHits, cmdDepth = append(cmdHits, lineFilter.within(t.start, t.end).glHits...), d
			case len(cmdHits) > 0 && len(w.stack) == cmdDepth && isOutputKey(key):
				ctx = cmdHits
			}
		}
		var rule string
		if !t.isKey && fields {
			rule = z.fieldRuleOf(w, secretAnswers)
		}
		switch {
		case z.textFrames && !t.isKey && len(w.stack) == 1 && string(w.memberKey()) == "raw" && isTextFrame(b):
			// A recorded stderr or raw line: the text stream, as the sanitizer saw it.
			text := raw
			if t.escaped {
				text, _ = unescape(raw, nil)
			}
			src = text
			f := z.filterFor(text, false).text()
			spans = z.textStream(text, &f, spans)
			if len(spans) > 0 {
				edits = rawSpans(raw, spans)
			}
		case rule != "":
			if len(raw) == 0 || isPlaceholder(raw) {
				return
			}
			text := raw
			if t.escaped {
				text, _ = unescape(raw, nil)
			}
			spans = append(spans, span{0, len(text), rule, z.placeholder(rule, text), nil})
			src = text
			repl = []byte(spans[0].repl)
		case !t.isKey && isDeltaKey(w.memberKey(), raw) && streamOf() != "":
			var ds []span
			b64 := string(w.memberKey()) == "deltaBase64"
			// The line's prefilter saw nothing inside this string: only its junctions
			// with the stream's context can match.
			within := lineFilter.within(t.start, t.end)
			plain := !b64 && !hiddenIn(t.start, t.end) && !hasB64Run(raw)
			cold, clean := plain && within.empty(), plain && within.clean()
			// A huge delta of command output holds many "00" (okta's literal) in
			// timings and counters, none starting a token long enough: clean but for
			// those (see cleanButShortTokens).
			shortOnly := !clean && plain && len(raw) >= hugeDelta && within.cleanButShortTokens(b, t.end) && !lineFilter.percentIn(b, t.start, t.end)
			esc := rawEscapes{&lineFilter, b, t.start, t.end}
			repl, edits, ds = z.deltaString(raw, t.escaped, b64, cold, clean, shortOnly, streamOf(), la, esc)
			spans = append(spans, ds...)
		case !t.isKey && bytes.HasSuffix(w.memberKey(), []byte("Base64")) && isBase64(raw):
			var reds64 []span
			repl, reds64, src = z.base64Field(raw, "")
			spans = append(spans, reds64...)
		case t.escaped && (hiddenIn(t.start, t.end) || lineFilter.within(t.start, t.end).contextual()):
			// \uXXXX or \/ may spell a secret differently, and rules that read
			// context (keywords, gitleaks' expressions) must see a \n as a line break
			// and \" as a quote: search the decoded text and map the spans back to raw
			// offsets, so an escape is never half inside a placeholder.
			text, _ := unescape(raw, nil)
			src = text
			f := z.filterFor(text, false).text()
			spans = z.find(text, &f, spans, false)
			if !t.isKey {
				spans = z.base64Spans(text, spans, false, 0)
				spans = resolve(z.crossFieldSpans(text, ctx, lineFilter.pre, &f, spans), 0)
			}
			if len(spans) > 0 {
				edits = rawSpans(raw, spans)
			}
		default:
			if quietSkip && lineFilter.quietIn(b, t.start, t.end) && (t.isKey || len(ctx) == 0 && !hasB64Run(raw)) {
				return // find, base64Spans and crossFieldSpans would find nothing
			}
			// Raw content is searched as is: the rules stop at escapes (\n, \"), and
			// known secrets and paths are searched in their JSON-escaped forms too.
			f := lineFilter.within(t.start, t.end)
			spans = z.find(raw, &f, spans, false)
			if !t.isKey {
				spans = z.base64Spans(raw, spans, false, 0)
				spans = z.crossFieldSpans(raw, ctx, lineFilter.pre, &f, spans)
			}
			if len(spans) > 0 {
				alignEscapes(raw, spans)
				spans = resolve(spans, 0)
				edits = spans
			}
		}
		if repl == nil && edits == nil {
			return
		}
		var ptr string
		for _, s := range spans {
			if s.rule == "" {
				continue
			}
			if ptr == "" {
				// A key on the way may itself hold a secret: the pointer is
				// sanitized like any text.
				ptr = z.Text(w.pointer())
			}
			var preview string
			switch {
			case s.val != nil:
				preview = Mask(s.val)
			case s.end <= len(src):
				preview = Mask(src[s.start:s.end])
			}
			reds = append(reds, Redaction{Rule: s.rule, Pointer: ptr, Placeholder: s.repl, preview: preview})
		}
		if out == nil {
			out = make([]byte, 0, len(b)+64)
		}
		out = append(out, b[last:t.start]...)
		if repl != nil {
			out = append(out, repl...)
		} else {
			out = rewrite(out, raw, nil, edits)
		}
		last = t.end
	})
	if out == nil {
		return nil, reds
	}
	return append(out, b[last:]...), reds
}

// quietSkip lets jsonFrame skip the searches of a string where the line's prefilter
// saw nothing (filter.quietIn); a test turns it off to compare.
var quietSkip = true

// walkers pools the walkers of jsonFrame.
var walkers = sync.Pool{New: func() any { return new(walker) }}

// isOutputKey names the members holding a command's output, read with the command's
// words as context.
func isOutputKey(k string) bool {
	switch k {
	case "aggregatedOutput", "formattedOutput", "output", "stdout", "stderr":
		return true
	}
	return false
}

// isTextFrame reports whether a recording line is a frame of the text stream: a
// stderr line, or a line that was not JSON (kind raw, its text in "raw").
func isTextFrame(b []byte) bool {
	if !bytes.Contains(b, []byte(`"raw"`)) {
		return false
	}
	r := gjson.GetManyBytes(b, "type", "dir", "kind", "msg")
	return r[0].Str == "frame" && (r[1].Str == "stderr" || r[2].Str == "raw" && !r[3].Exists())
}

// fieldRuleOf names the rule that makes the whole current string value a secret by
// where it sits: a credential field, an env map's value, a secret question's answer.
func (z *Sanitizer) fieldRuleOf(w *walker, secretAnswers map[string]bool) string {
	key := w.memberKey()
	if key == nil {
		if secretAnswers != nil && isSecretAnswer(w, secretAnswers) {
			return "secret-answer"
		}
		return ""
	}
	if r := fieldRule(key); r != "" {
		return r
	}
	if string(w.parentKey()) == "env" {
		return "env-value"
	}
	return ""
}

// isSecretAnswer reports whether the walker is at /result/answers/QID/answers/N for a
// question marked isSecret.
func isSecretAnswer(w *walker, qids map[string]bool) bool {
	s := w.stack
	return len(s) == 5 && string(s[0].key) == "result" && string(s[1].key) == "answers" &&
		qids[string(s[2].key)] && string(s[3].key) == "answers" && s[4].array
}

// secretAnswersFor remembers the secret questions of a requestUserInput request and,
// for the response answering one, returns the question ids whose answers to redact.
func (z *Sanitizer) secretAnswersFor(b []byte) map[string]bool {
	if bytes.Contains(b, []byte(`"isSecret":true`)) || bytes.Contains(b, []byte(`"isSecret": true`)) {
		id := gjson.GetBytes(b, "id")
		if id.Exists() {
			qs := map[string]bool{}
			gjson.GetBytes(b, "params.questions").ForEach(func(_, q gjson.Result) bool {
				if q.Get("isSecret").Bool() {
					qs[q.Get("id").String()] = true
				}
				return true
			})
			z.mu.Lock()
			z.secretQuestions[id.Raw] = qs
			z.mu.Unlock()
		}
		return nil
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	if len(z.secretQuestions) == 0 || !bytes.Contains(b, []byte(`"answers"`)) {
		return nil
	}
	id := gjson.GetBytes(b, "id")
	qs, ok := z.secretQuestions[id.Raw]
	if !ok || !gjson.GetBytes(b, "result").Exists() {
		return nil
	}
	delete(z.secretQuestions, id.Raw)
	return qs
}

// isBase64 reports whether raw is standard base64 (padded or not), the encoding the
// app-server uses for dataBase64 and deltaBase64.
func isBase64(raw []byte) bool {
	n := len(raw)
	for n > 0 && raw[n-1] == '=' {
		n--
	}
	if len(raw)-n > 2 || (len(raw) != n && len(raw)%4 != 0) || n%4 == 1 {
		return false
	}
	for _, c := range raw[:n] {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/') {
			return false
		}
	}
	return true
}

// base64Field decodes a field ending in "Base64" (fs/readFile dataBase64, command
// deltaBase64), sanitizes the decoded bytes as text and re-encodes them when a span
// was replaced. The returned spans carry the rules (positions are in decoded text).
func (z *Sanitizer) base64Field(raw []byte, stream string) ([]byte, []span, []byte) {
	enc := base64.StdEncoding
	if len(raw)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	dec, err := enc.AppendDecode(nil, raw)
	if err != nil {
		return nil, nil, nil
	}
	f := z.filterFor(dec, false).text()
	spans := z.find(dec, &f, nil, false)
	if stream != "" {
		spans = z.edgeSpans(whole(dec), spans)
		spans = z.shapeEdges(stream, whole(dec), spans)
	}
	if len(spans) == 0 {
		return nil, nil, nil
	}
	return enc.AppendEncode(nil, rewrite(nil, dec, nil, spans)), spans, dec
}

// minEdge is the shortest piece of a known secret recognized at a delta's edge.
const minEdge = 6

// edgeSpans adds the pieces of known secrets a streamed delta may hold at its edges:
// output is chunked wherever the pipe was read, so a secret can end one delta and
// begin the next, and neither holds it whole. A delta that ends with the first
// minEdge or more bytes of a secret (in its plain, JSON-escaped or URL-encoded form),
// or begins with its last ones, has that piece replaced. The pieces must lie within
// v's ends (see view.holdsEdges).
func (z *Sanitizer) edgeSpans(v view, spans []span) []span {
	base := len(spans)
	for i, forms := range z.edges {
		var repl string
		add := func(s, e int) {
			if repl == "" {
				repl = z.placeholder("known-secret", []byte(z.secrets[i].Value))
			}
			spans = append(spans, span{s, e, "known-secret", repl, nil})
		}
		for _, form := range forms {
			for k := min(len(form)-1, v.n); k >= minEdge; k-- {
				if bytes.HasSuffix(v.tail, form[:k]) {
					add(v.n-k, v.n)
					break
				}
			}
			for k := min(len(form)-1, v.n); k >= minEdge; k-- {
				if bytes.HasPrefix(v.head, form[len(form)-k:]) {
					add(0, k)
					break
				}
			}
		}
	}
	if len(spans) == base {
		return spans
	}
	return resolve(spans, 0)
}

// isDeltaKey reports whether a member is a streamed delta's text: "delta", or
// "deltaBase64" holding base64.
func isDeltaKey(key, raw []byte) bool {
	switch string(key) {
	case "delta":
		return true
	case "deltaBase64":
		return isBase64(raw)
	}
	return false
}
