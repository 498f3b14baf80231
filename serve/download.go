package serve

import (
	"bufio"
	"net/http"
	"os"
	"path/filepath"

	"github.com/codexrec/codexrec/internal/mask"
)

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
