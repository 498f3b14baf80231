package serve

import (
	"net/http"
	"strings"
	"unicode/utf8"
)

type searchHit struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Seq     int64  `json:"s"`
	Dir     string `json:"d"`
	Method  string `json:"m,omitempty"`
	Snippet string `json:"x"`
}

// apiSearch finds text in every session's frames (method, summary, masked content),
// case-insensitively; at most limit hits (100).
func (s *Server) apiSearch(w http.ResponseWriter, r *http.Request) {
	q := strings.ToLower(strings.TrimSpace(r.URL.Query().Get("q")))
	if q == "" {
		badRequest(w, "q is empty")
		return
	}
	const limit = 100
	_, list := s.list()
	hits := []searchHit{}
	more := false
	for _, in := range list {
		s.mu.Lock()
		ss := s.byID[in.ID]
		s.mu.Unlock()
		if ss == nil {
			continue
		}
		ss.mu.Lock()
		for _, fr := range ss.frames {
			if fr.event != "" || !matchText(fr, q) {
				continue
			}
			if len(hits) == limit {
				more = true
				break
			}
			hits = append(hits, searchHit{ID: ss.id, Name: ss.rel, Seq: fr.row.Seq, Dir: fr.row.Dir.String(),
				Method: fr.row.Method, Snippet: snippet(fr.content, q)})
		}
		ss.mu.Unlock()
		if more {
			break
		}
	}
	writeJSON(w, map[string]any{"hits": hits, "more": more})
}

// snippet is the text around the first match of q in s.
func snippet(s, q string) string {
	i := strings.Index(strings.ToLower(s), q)
	if i < 0 {
		return clip(s, 160)
	}
	start, end := max(0, i-60), min(len(s), i+len(q)+100)
	for start > 0 && !utf8.RuneStart(s[start]) {
		start--
	}
	for end < len(s) && !utf8.RuneStart(s[end]) {
		end++
	}
	out := s[start:end]
	if start > 0 {
		out = "…" + out
	}
	if end < len(s) {
		out += "…"
	}
	return out
}
