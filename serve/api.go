package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/internal/mask"
	"github.com/codexrec/codexrec/view"
	"github.com/codexrec/codexrec/wire"
)

// csp allows the page's own script and style (no inline code at all), requests to
// this server only, and nothing else.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the page and its API. Every request needs the token.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.index)
	mux.HandleFunc("GET /app.js", asset("text/javascript; charset=utf-8", appJS))
	mux.HandleFunc("GET /app.css", asset("text/css; charset=utf-8", appCSS))
	mux.HandleFunc("GET /api/sessions", s.apiSessions)
	mux.HandleFunc("GET /api/events", s.apiEvents)
	mux.HandleFunc("GET /api/frames", s.apiFrames)
	mux.HandleFunc("GET /api/frame", s.apiFrame)
	mux.HandleFunc("GET /api/search", s.apiSearch)
	mux.HandleFunc("GET /api/diff", s.apiDiff)
	mux.HandleFunc("GET /api/download", s.apiDownload)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-store")
		if !s.authorized(r) {
			http.Error(w, "forbidden: open the address codexrec serve printed (it holds the access token)", http.StatusForbidden)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("token") != "" {
		// The token becomes a cookie for this origin and leaves the address bar.
		http.SetCookie(w, &http.Cookie{Name: cookieName, Value: s.token, Path: "/", HttpOnly: true,
			SameSite: http.SameSiteStrictMode})
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	io.WriteString(w, indexHTML)
}

func asset(ctype, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		io.WriteString(w, body)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	enc.Encode(v)
}

func badRequest(w http.ResponseWriter, format string, a ...any) {
	http.Error(w, fmt.Sprintf(format, a...), http.StatusBadRequest)
}

// sessionInfo is a session in the list.
type sessionInfo struct {
	ID           string  `json:"id"`
	Name         string  `json:"name"`
	Started      string  `json:"started,omitempty"`
	CodexVersion string  `json:"codexVersion,omitempty"`
	Scenario     string  `json:"scenario,omitempty"`
	Transport    string  `json:"transport"`
	Counts       counts  `json:"counts"`
	Frames       int     `json:"frames"`
	Live         bool    `json:"live"`
	Ended        string  `json:"ended,omitempty"`
	ExitCode     *int    `json:"exitCode,omitempty"`
	Duration     float64 `json:"duration"`
	Error        string  `json:"error,omitempty"`
	Problems     int     `json:"problems,omitempty"`
	Version      int64   `json:"version"`
	Replay       string  `json:"replay"`
	Command      string  `json:"command,omitempty"`
}

func (s *Server) list() (int64, []sessionInfo) {
	s.mu.Lock()
	version := s.version
	all := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		all = append(all, ss)
	}
	s.mu.Unlock()
	out := make([]sessionInfo, 0, len(all))
	for _, ss := range all {
		out = append(out, s.info(ss))
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Started != out[j].Started {
			return out[i].Started > out[j].Started
		}
		return out[i].Name < out[j].Name
	})
	return version, out
}

func (s *Server) info(ss *session) sessionInfo {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	in := sessionInfo{ID: ss.id, Name: ss.rel, Started: ss.header.Started, CodexVersion: ss.header.CodexVersion,
		Scenario: ss.header.Scenario, Transport: "stdio", Counts: ss.counts, Frames: len(ss.frames), Live: ss.live,
		Duration: ss.last.Seconds(), Error: ss.errText, Problems: len(ss.problems), Version: ss.version,
		Replay: s.command + " replay " + shellQuote(ss.path), Command: joinArgs(ss.header.Command)}
	if in.CodexVersion == "" {
		in.CodexVersion = ss.header.SchemaVersion
	}
	if ss.header.Socket != nil {
		in.Transport = ss.header.Socket.Transport
	}
	if tr := ss.trailer; tr != nil {
		in.Ended = string(tr.Ended)
		code := tr.ExitCode
		in.ExitCode = &code
		in.Duration = max(in.Duration, tr.Duration)
	}
	return in
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func (s *Server) apiSessions(w http.ResponseWriter, r *http.Request) {
	v, list := s.list()
	writeJSON(w, map[string]any{"version": v, "sessions": list})
}

// apiEvents streams the session list as server-sent events, once on connecting and
// again whenever a recording appears or grows (at most every 100ms).
func (s *Server) apiEvents(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	keepalive := time.NewTicker(15 * time.Second)
	defer keepalive.Stop()
	for {
		s.mu.Lock()
		changed := s.changed
		s.mu.Unlock()
		v, list := s.list()
		b, _ := json.Marshal(map[string]any{"version": v, "sessions": list})
		if _, err := fmt.Fprintf(w, "event: sessions\ndata: %s\n\n", b); err != nil {
			return
		}
		fl.Flush()
	wait:
		for {
			select {
			case <-r.Context().Done():
				return
			case <-s.stop:
				return
			case <-keepalive.C:
				if _, err := io.WriteString(w, ": keepalive\n\n"); err != nil {
					return
				}
				fl.Flush()
			case <-changed:
				break wait
			}
		}
		select {
		case <-time.After(100 * time.Millisecond):
		case <-r.Context().Done():
			return
		}
	}
}

func (s *Server) lookup(w http.ResponseWriter, r *http.Request, param string) *session {
	id := r.URL.Query().Get(param)
	s.mu.Lock()
	ss := s.byID[id]
	s.mu.Unlock()
	if ss == nil {
		http.Error(w, "no such session", http.StatusNotFound)
	}
	return ss
}

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

// apiDownload sends the recording file (what is written so far, for one still being
// recorded), masked line by line unless the server reveals.
func (s *Server) apiDownload(w http.ResponseWriter, r *http.Request) {
	ss := s.lookup(w, r, "id")
	if ss == nil {
		return
	}
	f, err := os.Open(ss.current())
	if err != nil {
		http.Error(w, "the recording is gone", http.StatusNotFound)
		return
	}
	defer f.Close()
	m, err := mask.New(s.reveal)
	if err != nil {
		http.Error(w, "sanitizer unavailable", http.StatusInternalServerError)
		return
	}
	name := filepath.Base(ss.path)
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Content-Disposition", "attachment; filename=\""+asciiName(name)+"\"")
	br := bufio.NewReaderSize(f, 64<<10)
	bw := bufio.NewWriter(w)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			bw.Write(m.Line(line))
		}
		if err != nil {
			break
		}
	}
	bw.Flush()
}

// asciiName keeps a file name safe inside a quoted header parameter.
func asciiName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			b[i] = '_'
		}
	}
	return string(b)
}
