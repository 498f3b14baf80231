package replay

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"

	"github.com/codexrec/codexrec/internal/jsonx"
	"github.com/codexrec/codexrec/internal/normalize"
	"github.com/codexrec/codexrec/wire"
)

// A substitution replaces, inside later server frames, a value the recorded client
// chose with the value the live client chose (a cwd, a client name echoed in
// userAgent), as JSON string content.
type substitution struct {
	recorded, live []byte
}

// minEchoLen keeps short values ("1", "yes") from being replaced by accident.
const minEchoLen = 4

// learnEcho compares the bodies of an expected client message and the live one that
// matched it and remembers every string the live client chose differently.
func (s *session) learnEcho(want, got Message) {
	wb, gb := want.Body(), got.Body()
	if wb == nil || gb == nil || bytes.Equal(wb, gb) {
		return
	}
	wv, ok1 := decode(wb)
	gv, ok2 := decode(gb)
	if !ok1 || !ok2 {
		return
	}
	before := len(s.subst)
	s.walkEcho(wv, gv)
	if len(s.subst) > before {
		// Longest first, so a path is replaced before a prefix of it.
		sort.SliceStable(s.subst, func(i, j int) bool { return len(s.subst[i].recorded) > len(s.subst[j].recorded) })
	}
}

func (s *session) walkEcho(w, g any) {
	switch w := w.(type) {
	case map[string]any:
		if g, ok := g.(map[string]any); ok {
			for k, wv := range w {
				if gv, ok := g[k]; ok {
					s.walkEcho(wv, gv)
				}
			}
		}
	case []any:
		if g, ok := g.([]any); ok && len(g) == len(w) {
			for i := range w {
				s.walkEcho(w[i], g[i])
			}
		}
	case string:
		g, ok := g.(string)
		if !ok || g == w || len(w) < minEchoLen {
			return
		}
		// A placeholder the live client filled in stands for that text wherever the
		// server quoted it ("<cwd>" inside a path, a command's output).
		for p, v := range normalize.PlaceholderValues(w, g) {
			if p != v && p != w {
				s.addEcho(p, v)
			}
		}
		s.addEcho(w, g)
	}
}

func (s *session) addEcho(recorded, live string) {
	rec, lv := jsonx.ShortBF.AppendContent(nil, recorded), jsonx.ShortBF.AppendContent(nil, live)
	for i := range s.subst {
		if bytes.Equal(s.subst[i].recorded, rec) {
			s.subst[i].live = lv
			return
		}
	}
	s.subst = append(s.subst, substitution{rec, lv})
}

// render returns the bytes to send for server frame i: the recorded line with the
// live client's id spliced in where it differs from the recorded one, and echoed
// values substituted. The recorded line is never modified.
func (s *session) render(i int) []byte {
	var id wire.ID
	if a := s.sc.Server[i].Answers; a >= 0 {
		id = s.liveID[a]
	}
	return s.renderAs(i, id)
}

// renderAs is render with the live id given (a response sent once more).
func (s *session) renderAs(i int, id wire.ID) []byte {
	f := &s.sc.Server[i]
	line := f.Line
	splice := f.Answers >= 0 && id != "" && id != f.Msg.ID
	restore := f.paths && s.restoring
	if !splice && len(s.subst) == 0 && !restore {
		return line
	}
	var b []byte
	if !splice {
		b = s.substitute(nil, line)
	} else {
		b = make([]byte, 0, len(line)+len(id))
		b = s.substitute(b, line[:f.idStart])
		b = append(b, id...)
		b = s.substitute(b, line[f.idEnd:])
	}
	if restore {
		b = s.restore(b)
	}
	return b
}

// substitute appends part to b with every echoed value replaced.
func (s *session) substitute(b, part []byte) []byte {
	if len(s.subst) == 0 {
		return append(b, part...)
	}
	cur := part
	for _, sub := range s.subst {
		if bytes.Contains(cur, sub.recorded) {
			cur = bytes.ReplaceAll(cur, sub.recorded, sub.live)
		}
	}
	return append(b, cur...)
}

// errorResponse builds a JSON-RPC error answer to the live request id, shaped like
// the app-server's own (error first, then id).
func errorResponse(id wire.ID, code int, message string) []byte {
	b := append([]byte(`{"error":{"code":`), strconv.Itoa(code)...)
	msg, _ := json.Marshal(message)
	b = append(b, `,"message":`...)
	b = append(b, msg...)
	b = append(b, `},"id":`...)
	b = append(b, id...)
	return append(b, "}\n"...)
}
