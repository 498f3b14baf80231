package serve

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"
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
	mux.HandleFunc("GET /report", s.apiReport)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-store")
		if !s.authorized(r) {
			http.Error(w, "forbidden: open the address the server printed when it started (it holds the access token)", http.StatusForbidden)
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
	writeJSON(w, map[string]any{"version": v, "sessions": list, "reports": s.reportList()})
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
		b, _ := json.Marshal(map[string]any{"version": v, "sessions": list, "reports": s.reportList()})
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
