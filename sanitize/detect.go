package sanitize

import (
	"bytes"
	"sort"
)

// span is a piece of searched text to replace: a secret (rule set) or a path (rule
// empty, repl the map's placeholder).
type span struct {
	start, end int
	rule       string
	repl       string
	// val, when set, is the whole value the span hides (a delta's piece of a secret
	// shows only part of it), for previews.
	val []byte
}

// find returns the non-overlapping spans of text to replace, in order.
func (z *Sanitizer) find(text []byte, f *filter, dst []span, guard bool) []span {
	base := len(dst)
	if hasPercentEscape(text) {
		dst = z.percentSpans(text, dst, guard)
	}
	if f.empty() {
		return resolve(dst, base)
	}
	for _, i := range f.secrets {
		repl := ""
		forms := z.needles[i]
		if guard {
			forms = append(forms[:len(forms):len(forms)], z.guards[i]...)
		}
		for _, n := range forms {
			for off := 0; ; {
				k := bytes.Index(text[off:], n)
				if k < 0 {
					break
				}
				if repl == "" {
					repl = z.placeholder("known-secret", []byte(z.secrets[i].Value))
				}
				dst = append(dst, span{off + k, off + k + len(n), "known-secret", repl, nil})
				off += k + len(n)
			}
		}
	}
	for _, r := range f.rules {
		dst = z.ruleSpans(r, text, f, dst)
	}
	if len(f.glHits) > 0 {
		dst = z.gitleaksSpans(text, f, dst)
	}
	if f.keyword {
		dst = z.keywordSpans(text, f.kwPos, f.base, dst)
	}
	for _, i := range f.maps {
		m := z.maps[i]
		from := []byte(m.From)
		for off := 0; ; {
			k := bytes.Index(text[off:], from)
			if k < 0 {
				break
			}
			s, e := off+k, off+k+len(from)
			off = e
			if s > 0 && isPathChar(text[s-1], true) || e < len(text) && isPathChar(text[e], false) || z.afterPlaceholder(text[:s]) {
				continue
			}
			dst = append(dst, span{s, e, "", m.To, nil})
		}
	}
	return resolve(dst, base)
}

// ruleSpans runs r's expression on a window around each occurrence of one of its
// literals (found by the prefilter), never on the whole text.
func (z *Sanitizer) ruleSpans(r *shapeRule, text []byte, f *filter, dst []span) []span {
	covered := 0 // text before this has been searched by an earlier window
	var keyBuf [256]byte
	key := keyBuf[:0]
	for _, h := range f.ruleHits {
		p := f.pre.pats[h.id]
		if shapeRules[p.idx] != r {
			continue
		}
		occ := h.end - f.base - len(p.lit)
		if occ < 0 || occ+len(p.lit) > len(text) || occ < covered {
			continue
		}
		if !p.fold && !bytes.Equal(text[occ:occ+len(p.lit)], p.lit) {
			continue // the prefilter ignores case; this literal does not
		}
		off := occ + len(p.lit)
		if r.pre != nil && !r.pre(text, occ) {
			continue
		}
		if r.find != nil {
			if s, e, ok := r.find(text, occ); ok && s >= covered {
				if v := text[s:e]; !z.allowed(v) {
					dst = append(dst, span{s, e, r.name, z.placeholder(r.name, v), nil})
				}
				covered = e
			}
			continue
		}
		ws := max(0, occ-r.before)
		runEnd := len(text)
		if r.run {
			runEnd = occ
			for runEnd < len(text) && isTokenByte(text[runEnd]) {
				runEnd++
			}
			runEnd = min(len(text), runEnd+1) // and the byte \b looks at
		}
		for size := r.after; ; size *= 2 {
			we := min(len(text), off+size)
			if r.run {
				we = runEnd
			}
			ms := z.runs.findAll(r.re.get(), text[ws:we])
			if !r.run && len(ms) > 0 && ms[len(ms)-1][1] == we-ws && we < len(text) {
				continue // a match reaches the window's end: it may go on
			}
			for _, m := range ms {
				if r.word && !wordStart(text, ws+m[0]) {
					continue
				}
				s, e := m[2*r.group], m[2*r.group+1]
				if s < 0 {
					continue
				}
				v := text[ws+s : ws+e]
				key = appendPart(append(append(key[:0], 's'), r.name...), v)
				verdict := z.verdicts.get(key, func() verdict {
					if isPlaceholder(v) || (r.accept != nil && !r.accept(v)) || z.allowed(v) || isPlaceholderValue(v, r.kind()) {
						return verdict{}
					}
					return verdict{keep: true, repl: z.placeholder(r.name, v)}
				})
				if !verdict.keep {
					continue
				}
				if r.name == "url-credentials" && ws+e < len(text) && text[ws+e] == '@' && isPlaceholderPassword(v, urlHost(text[ws+e+1:])) {
					continue
				}
				dst = append(dst, span{ws + s, ws + e, r.name, verdict.repl, nil})
			}
			if len(ms) > 0 {
				covered = ws + ms[len(ms)-1][1] // later literals inside a match need no new window
			}
			break
		}
	}
	return dst
}

// afterPlaceholder reports whether b ends in a map's placeholder: "<tmp>/tmp" is what
// "/tmp/tmp" became, and its "/tmp" continues that path (sanitizing twice changes
// nothing).
func (z *Sanitizer) afterPlaceholder(b []byte) bool {
	if len(b) == 0 || b[len(b)-1] != '>' {
		return false
	}
	for _, m := range z.maps {
		if bytes.HasSuffix(b, []byte(m.To)) {
			return true
		}
	}
	return false
}

// isPathChar reports whether c continues a path name, so a map's From matched next
// to it is part of a longer name ("/tmp" in "/tmpfoo" or "./tmp").
func isPathChar(c byte, before bool) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || before && c == '.'
}

func (z *Sanitizer) allowed(v []byte) bool {
	for _, re := range z.allow {
		if re.Match(v) {
			return true
		}
	}
	return false
}

// resolve sorts dst[base:] and merges overlaps: a secret absorbs whatever it overlaps,
// and of overlapping paths the earliest, longest wins.
func resolve(dst []span, base int) []span {
	s := dst[base:]
	if len(s) < 2 {
		return dst
	}
	sort.Slice(s, func(i, j int) bool {
		if s[i].start != s[j].start {
			return s[i].start < s[j].start
		}
		return s[i].end > s[j].end
	})
	out := s[:1]
	for _, c := range s[1:] {
		p := &out[len(out)-1]
		if c.start >= p.end {
			out = append(out, c)
			continue
		}
		switch {
		case p.rule != "":
			p.end = max(p.end, c.end)
		case c.rule != "":
			p.rule, p.repl, p.end = c.rule, c.repl, max(p.end, c.end)
		}
	}
	return dst[:base+len(out)]
}

// rewrite appends raw to out with each span replaced. offs maps text offsets to raw
// ones (nil when raw is the text itself).
func rewrite(out, raw []byte, offs []int, spans []span) []byte {
	last := 0
	for _, s := range spans {
		rs, re := s.start, s.end
		if offs != nil {
			rs, re = offs[rs], offs[re]
		}
		out = append(out, raw[last:rs]...)
		out = append(out, s.repl...)
		last = re
	}
	return append(out, raw[last:]...)
}

// alignEscapes widens spans found in raw JSON string content so that none starts
// or ends inside an escape sequence (\n, \", \uXXXX): a replacement never leaves half
// an escape behind.
func alignEscapes(raw []byte, spans []span) {
	if len(spans) == 0 || bytes.IndexByte(raw, '\\') < 0 {
		return
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		end := min(len(raw), i+2)
		if end == i+2 && raw[i+1] == 'u' {
			end = min(len(raw), i+6)
		}
		for k := range spans {
			s := &spans[k]
			if s.start > i && s.start < end {
				s.start = i
			}
			if s.end > i && s.end < end {
				s.end = end
			}
		}
		i = end - 1
	}
}

// splitForText cuts spans of a line that is not valid JSON around the bytes that
// give JSON its structure (quotes, backslashes, control and non-ASCII bytes), each
// piece replaced alone: redacting never turns invalid JSON into valid JSON.
func splitForText(text []byte, spans []span) []span {
	var out []span
	for _, s := range spans {
		start := s.start
		for i := s.start; i <= s.end; i++ {
			if i < s.end && !structuralByte(text[i]) {
				continue
			}
			if i > start {
				out = append(out, span{start, i, s.rule, s.repl, nil})
			}
			start = i + 1
		}
	}
	return out
}

func structuralByte(c byte) bool { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80 }

// urlHost is the host at the start of b (what follows a URL's userinfo).
func urlHost(b []byte) []byte {
	for i, c := range b {
		switch c {
		case '/', ':', '?', '#', ' ', '"', '\\', '\n', '\'':
			return b[:i]
		}
	}
	return b
}
