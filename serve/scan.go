package serve

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// candidate is a file that holds, or will hold, the recording at a logical path.
type candidate struct {
	file string
	fi   os.FileInfo
	temp bool
}

// scan walks the served directories and returns, for each logical recording path,
// the file to read: the published NAME, or a temporary file ".NAME.*.tmp" newer than
// it (a recording in progress, as show --follow chooses).
func (s *Server) scan() (map[string]candidate, map[string]os.FileInfo) {
	out := map[string]candidate{}
	html := map[string]os.FileInfo{}
	for _, dir := range s.dirs {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable: skip it, keep serving the rest
			}
			name := d.Name()
			if d.IsDir() {
				if p != dir && (strings.HasPrefix(name, ".") || name == "node_modules") {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			if strings.HasSuffix(name, ".html") && !strings.HasPrefix(name, ".") {
				if fi, err := d.Info(); err == nil {
					html[p] = fi
				}
				return nil
			}
			logical, temp := logicalPath(p)
			if logical == "" {
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return nil
			}
			c := candidate{file: p, fi: fi, temp: temp}
			if old, ok := out[logical]; ok && !better(c, old) {
				return nil
			}
			out[logical] = c
			return nil
		})
	}
	return out, html
}

// better: a temporary file not older than the published recording wins (a recording
// in progress over an old one); between temporary files the newest.
func better(c, old candidate) bool {
	if c.temp != old.temp {
		if c.temp {
			return !c.fi.ModTime().Before(old.fi.ModTime())
		}
		return old.fi.ModTime().Before(c.fi.ModTime())
	}
	return c.fi.ModTime().After(old.fi.ModTime())
}

// logicalPath maps a file to the recording it holds: NAME.jsonl to itself, the
// writer's temporary file .NAME.jsonl.RANDOM.tmp to NAME.jsonl; "" for other files.
func logicalPath(p string) (string, bool) {
	dir, base := filepath.Split(p)
	if strings.HasPrefix(base, ".") && strings.HasSuffix(base, ".tmp") {
		inner := strings.TrimSuffix(base[1:], ".tmp")
		i := strings.LastIndexByte(inner, '.')
		if i <= 0 || !strings.HasSuffix(inner[:i], ".jsonl") {
			return "", false
		}
		return filepath.Join(dir, inner[:i]), true
	}
	if strings.HasPrefix(base, ".") || !strings.HasSuffix(base, ".jsonl") {
		return "", false
	}
	return p, false
}

// refresh brings the sessions up to date with the directories: new recordings get
// a session (read in the background), a recording replaced by another file is read
// again from its start.
func (s *Server) refresh() {
	found, html := s.scan()
	s.mu.Lock()
	defer s.mu.Unlock()
	changed := s.scanReports(html)
	for logical, c := range found {
		sess := s.sessions[logical]
		if sess != nil {
			sess.mu.Lock()
			same := sess.fileInfo != nil && os.SameFile(sess.fileInfo, c.fi)
			if same {
				sess.file = c.file // published: the temporary name is gone
			}
			busy := sess.live
			sess.mu.Unlock()
			if same || busy {
				continue
			}
			if prev, ok := s.rejected[logical]; ok && os.SameFile(prev, c.fi) {
				continue
			}
		}
		if !c.temp && !looksLikeRecording(c.file) {
			s.rejected[logical] = c.fi
			continue
		}
		f, err := os.Open(c.file)
		if err != nil {
			continue
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			continue
		}
		rel := s.relName(logical)
		ns := &session{id: sessionID(logical), path: logical, rel: rel, file: c.file, fileInfo: fi,
			bySeq: map[int64]int{}, live: true, version: 1, mod: fi.ModTime()}
		if sess != nil {
			ns.version = sess.version + 1
		}
		s.sessions[logical] = ns
		s.byID[ns.id] = ns
		changed = true
		go ns.ingest(f, s.stop, s.poll, s.reveal, s.command, s.notify)
	}
	// A recording removed from the directories leaves the list once nothing reads it.
	for logical, sess := range s.sessions {
		if _, ok := found[logical]; ok {
			continue
		}
		sess.mu.Lock()
		busy := sess.live
		sess.mu.Unlock()
		if !busy {
			delete(s.sessions, logical)
			delete(s.byID, sess.id)
			changed = true
		}
	}
	if changed {
		s.bump()
	}
}

// looksLikeRecording reads the first bytes of a published file: a recording starts
// with its header entry. Other .jsonl files are not listed.
func looksLikeRecording(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 64)
	n, err := f.Read(buf)
	if err != nil && !errors.Is(err, fs.ErrClosed) && n == 0 {
		return false
	}
	head := strings.ReplaceAll(string(buf[:n]), " ", "")
	return strings.HasPrefix(head, `{"type":"header"`)
}

// watch refreshes every poll until stop.
func (s *Server) watch() {
	t := time.NewTicker(s.poll)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.refresh()
		}
	}
}
