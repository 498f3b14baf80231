package serve

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/codexrec/codexrec/internal/mask"
)

// report is an upgrade report page (codexrec upgrade -o FILE.html) under a served
// directory.
type report struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	path string
	mod  time.Time
}

// reportCSP serves a report sandboxed: an opaque origin (it cannot reach this
// server's API or cookie), no script, no network; the page is static.
const reportCSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'"

// isUpgradeReport reads the start of an HTML file: codexrec upgrade's page has its
// title there.
func isUpgradeReport(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	return bytes.HasPrefix(head, []byte("<!DOCTYPE html>")) && bytes.Contains(head, []byte("<title>codexrec upgrade "))
}

// scanReports finds upgrade reports under the directories; s.mu is held.
func (s *Server) scanReports(htmlFiles map[string]os.FileInfo) bool {
	changed := false
	for p, fi := range htmlFiles {
		if r, ok := s.reports[p]; ok && r.mod.Equal(fi.ModTime()) {
			continue
		}
		if !isUpgradeReport(p) {
			if _, ok := s.reports[p]; ok {
				delete(s.reports, p)
				changed = true
			}
			continue
		}
		s.reports[p] = &report{ID: sessionID("report\x00" + p), Name: s.relName(p), path: p, mod: fi.ModTime()}
		changed = true
	}
	for p := range s.reports {
		if _, ok := htmlFiles[p]; !ok {
			delete(s.reports, p)
			changed = true
		}
	}
	return changed
}

func (s *Server) reportList() []report {
	s.mu.Lock()
	out := make([]report, 0, len(s.reports))
	for _, r := range s.reports {
		out = append(out, *r)
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// relName is p relative to the served directory that holds it.
func (s *Server) relName(p string) string {
	for _, dir := range s.dirs {
		if r, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	return p
}

// apiReport serves an upgrade report page, sandboxed and masked.
func (s *Server) apiReport(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	var path string
	for _, rep := range s.reportList() {
		if rep.ID == id {
			path = rep.path
		}
	}
	if path == "" {
		http.Error(w, "no such report", http.StatusNotFound)
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		http.Error(w, "the report is gone", http.StatusNotFound)
		return
	}
	m, err := mask.New(s.reveal)
	if err != nil {
		http.Error(w, "sanitizer unavailable", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Security-Policy", reportCSP)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	io.WriteString(w, m.Text(string(b)))
}
