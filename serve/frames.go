package serve

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/codexrec/codexrec/view"
	"github.com/codexrec/codexrec/wire"
)

// filter is what the frames list shows.
type filter struct {
	dir, kind, thread, q string
	methods              []string
	findings             bool
}

func filterOf(r *http.Request) filter {
	q := r.URL.Query()
	f := filter{dir: q.Get("dir"), kind: q.Get("kind"), thread: q.Get("thread"), q: strings.ToLower(q.Get("q")),
		findings: q.Get("findings") == "1"}
	for _, m := range strings.Fields(q.Get("method")) {
		f.methods = append(f.methods, m)
	}
	return f
}

func (f filter) keep(fr *frame) bool {
	r := fr.row
	if fr.event != "" {
		return f.dir == "" && f.kind == "" && len(f.methods) == 0 && f.thread == "" && !f.findings &&
			(f.q == "" || strings.Contains(strings.ToLower(fr.event), f.q))
	}
	if f.dir != "" && r.Dir.String() != f.dir {
		return false
	}
	if f.kind != "" && (r.Dir == wire.Stderr || r.Kind.String() != f.kind) {
		return false
	}
	if f.thread != "" && !strings.HasPrefix(r.Thread, f.thread) {
		return false
	}
	if f.findings && len(fr.notes) == 0 {
		return false
	}
	if len(f.methods) > 0 {
		ok := false
		for _, g := range f.methods {
			if view.MatchMethod(g, r.Method) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if f.q != "" && !matchText(fr, f.q) {
		return false
	}
	return true
}

func matchText(fr *frame, q string) bool {
	r := fr.row
	if strings.HasPrefix(q, "#") && "#"+strconv.FormatInt(r.Seq, 10) == q {
		return true
	}
	return containsFold(r.Method, q) || containsFold(r.Summary, q) || containsFold(fr.content, q)
}

// containsFold is strings.Contains(strings.ToLower(s), q) for a lower-case q,
// without copying s when q is ASCII.
func containsFold(s, q string) bool {
	if q == "" {
		return true
	}
	for i := 0; i < len(q); i++ {
		if q[i] >= utf8.RuneSelf {
			return strings.Contains(strings.ToLower(s), q)
		}
	}
	n := len(q)
	first := q[0]
	for i := 0; i+n <= len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != first {
			continue
		}
		j := 1
		for ; j < n; j++ {
			d := s[i+j]
			if d >= 'A' && d <= 'Z' {
				d += 'a' - 'A'
			}
			if d != q[j] {
				break
			}
		}
		if j == n {
			return true
		}
	}
	return false
}

// frameJSON is a row of the list; short keys, since pages hold hundreds.
type frameJSON struct {
	I       int         `json:"i"` // index among the matching rows
	Seq     int64       `json:"s"`
	T       float64     `json:"t"`
	Dir     string      `json:"d,omitempty"`
	Kind    string      `json:"k,omitempty"`
	Method  string      `json:"m,omitempty"`
	ID      string      `json:"id,omitempty"`
	Thread  string      `json:"th,omitempty"`
	Turn    string      `json:"tu,omitempty"`
	Item    string      `json:"it,omitempty"`
	Summary string      `json:"u,omitempty"`
	Pair    int64       `json:"p,omitempty"`
	Latency float64     `json:"l,omitempty"`
	Notes   []view.Note `json:"n,omitempty"`
	Event   string      `json:"e,omitempty"`
	Raw     string      `json:"r,omitempty"`
	Segment int         `json:"seg,omitempty"`
}

const rawClip = 4 << 10

func toJSON(i int, fr *frame, raw bool) frameJSON {
	r := fr.row
	j := frameJSON{I: i, Seq: r.Seq, T: r.Time.Seconds(), Method: r.Method, ID: string(r.ID), Thread: r.Thread,
		Turn: r.Turn, Item: r.Item, Summary: r.Summary, Pair: r.Pair, Latency: r.Latency.Seconds(),
		Notes: fr.notes, Event: fr.event, Segment: r.Segment}
	if fr.event == "" {
		j.Dir = r.Dir.String()
		if r.Dir != wire.Stderr {
			j.Kind = r.Kind.String()
		}
	}
	if raw && fr.event == "" {
		j.Raw = clip(fr.content, rawClip)
	}
	return j
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// apiFrames serves one page of a session's rows that match the filters: the page
// never holds more than limit rows (at most 500), however large the recording.
func (s *Server) apiFrames(w http.ResponseWriter, r *http.Request) {
	ss := s.lookup(w, r, "id")
	if ss == nil {
		return
	}
	q := r.URL.Query()
	from, _ := strconv.Atoi(q.Get("from"))
	limit, _ := strconv.Atoi(q.Get("limit"))
	if limit <= 0 || limit > 500 {
		limit = 200
	}
	from = max(from, 0)
	f := filterOf(r)
	raw := q.Get("raw") == "1"
	at, _ := strconv.ParseInt(q.Get("at"), 10, 64)
	ss.mu.Lock()
	matched := 0
	atIndex := -1
	var page []frameJSON
	for _, fr := range ss.frames {
		if !f.keep(fr) {
			continue
		}
		if at != 0 && fr.event == "" && fr.row.Seq == at {
			atIndex = matched
		}
		if matched >= from && len(page) < limit {
			page = append(page, toJSON(matched, fr, raw))
		}
		matched++
	}
	total, version := len(ss.frames), ss.version
	ss.mu.Unlock()
	if page == nil {
		page = []frameJSON{}
	}
	writeJSON(w, map[string]any{"version": version, "total": total, "matched": matched, "from": from,
		"at": atIndex, "frames": page})
}

const detailClip = 1 << 20

// apiFrame serves one frame whole: its masked content, pretty-printed when JSON
// (re-indented from the recorded text, so numbers and member order stay as on the
// wire), its notes and its joined frame.
func (s *Server) apiFrame(w http.ResponseWriter, r *http.Request) {
	ss := s.lookup(w, r, "id")
	if ss == nil {
		return
	}
	seq, err := strconv.ParseInt(r.URL.Query().Get("seq"), 10, 64)
	if err != nil {
		badRequest(w, "seq: %v", err)
		return
	}
	ss.mu.Lock()
	i, ok := ss.bySeq[seq]
	var fr frame
	var row view.Row
	if ok {
		fr, row = *ss.frames[i], *ss.frames[i].row
	}
	ss.mu.Unlock()
	if !ok {
		http.Error(w, "no such frame", http.StatusNotFound)
		return
	}
	fr.row = &row
	out := map[string]any{"frame": toJSON(0, &fr, false), "size": len(fr.content)}
	content := fr.content
	if len(content) > detailClip {
		out["clipped"] = true
		content = clip(content, detailClip)
	} else if row.Dir != wire.Stderr && row.Kind.IsJSON() {
		var buf bytes.Buffer
		if json.Indent(&buf, []byte(content), "", "  ") == nil {
			out["pretty"] = buf.String()
		}
	}
	out["content"] = content
	writeJSON(w, out)
}
