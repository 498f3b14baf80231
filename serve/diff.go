package serve

import (
	"bytes"
	"fmt"
	"net/http"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/internal/mask"
	"github.com/codexrec/codexrec/wire"
)

type diffSide struct {
	Seq     int64  `json:"s"`
	Method  string `json:"m,omitempty"`
	Kind    string `json:"k,omitempty"`
	Summary string `json:"u,omitempty"`
}

type diffStepJSON struct {
	Mark    string    `json:"mk"` // = same, ~ changed, + only in new, - only in old, > moved
	Old     *diffSide `json:"o,omitempty"`
	New     *diffSide `json:"n,omitempty"`
	Changes []string  `json:"c,omitempty"`
}

// apiDiff compares two sessions as codexrec diff does (diff.Compare, diff.Align) and
// serves the text report and the aligned steps of each direction.
func (s *Server) apiDiff(w http.ResponseWriter, r *http.Request) {
	a := s.lookup(w, r, "a")
	if a == nil {
		return
	}
	b := s.lookup(w, r, "b")
	if b == nil {
		return
	}
	aFile, bFile := a.current(), b.current()
	oldS, err := diff.LoadFile(aFile, diff.Options{})
	if err != nil {
		badRequest(w, "%s: %s", a.rel, s.maskText(err.Error()))
		return
	}
	newS, err := diff.LoadFile(bFile, diff.Options{})
	if err != nil {
		badRequest(w, "%s: %s", b.rel, s.maskText(err.Error()))
		return
	}
	oldS.Name, newS.Name = a.rel, b.rel
	rep := diff.Compare(oldS, newS)
	var text bytes.Buffer
	rep.WriteText(&text, false)
	side := func(ss *session, m *diff.Message) *diffSide {
		if m == nil {
			return nil
		}
		d := &diffSide{Seq: m.Seq, Method: m.Method, Kind: m.Kind.String()}
		ss.mu.Lock()
		if i, ok := ss.bySeq[m.Seq]; ok {
			d.Summary = ss.frames[i].row.Summary
		}
		ss.mu.Unlock()
		return d
	}
	type lane struct {
		Dir   string         `json:"dir"`
		Steps []diffStepJSON `json:"steps"`
	}
	var lanes []lane
	for _, d := range []wire.Direction{wire.ClientToServer, wire.ServerToClient} {
		l := lane{Dir: d.String(), Steps: []diffStepJSON{}}
		for _, st := range diff.Align(oldS, newS, d) {
			j := diffStepJSON{Old: side(a, st.Old), New: side(b, st.New)}
			switch {
			case st.Old != nil && st.New != nil && len(st.Changes) == 0:
				j.Mark = "="
			case st.Old != nil && st.New != nil:
				j.Mark = "~"
			case st.Moved != nil:
				j.Mark = ">"
			case st.New != nil:
				j.Mark = "+"
			default:
				j.Mark = "-"
			}
			for _, c := range st.Changes {
				j.Changes = append(j.Changes, s.maskText(changeLine(c)))
			}
			l.Steps = append(l.Steps, j)
		}
		lanes = append(lanes, l)
	}
	writeJSON(w, map[string]any{"old": a.rel, "new": b.rel, "same": rep.Same, "report": s.maskText(text.String()), "lanes": lanes})
}

func changeLine(c diff.Change) string {
	where := c.Pointer
	if where == "" {
		where = "message"
	}
	switch {
	case c.Old != "" && c.New != "":
		return fmt.Sprintf("%s %s: %s → %s", where, c.Change, c.Old, c.New)
	case c.New != "":
		return fmt.Sprintf("%s %s: %s", where, c.Change, c.New)
	case c.Old != "":
		return fmt.Sprintf("%s %s: was %s", where, c.Change, c.Old)
	}
	return where + " " + string(c.Change)
}

func (s *Server) maskText(t string) string {
	m, err := mask.New(s.reveal)
	if err != nil {
		return "<text withheld: sanitizer unavailable>"
	}
	return m.Text(t)
}
