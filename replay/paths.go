package replay

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/codexrec/codexrec/internal/jsonx"
	"github.com/codexrec/codexrec/sanitize"
)

// A sanitized recording holds placeholders where the recorded machine's paths were
// (<cwd>, <codex-home>, <home>, <tmp>). A strictly typed client decodes some of those
// fields as absolute paths and refuses "<cwd>" there, and a client that sends no cwd
// never tells the replay what to echo in its place. So a placeholder the live client
// did not fill in (see echo.go) is served as a real absolute path of the replay's own
// environment, tails kept: "<cwd>/src/a.go" becomes "/real/cwd/src/a.go". The
// recording itself is never changed.

// Paths are the directories served in place of the sanitizer's path placeholders.
// Each empty field takes its default when Serve starts: Cwd the process's working
// directory, Home $HOME, Tmp os.TempDir(), CodexHome $CODEX_HOME or else a private
// temporary directory that Serve creates and removes when it returns.
type Paths struct {
	Cwd       string // for <cwd>
	CodexHome string // for <codex-home>
	Home      string // for <home>
	Tmp       string // for <tmp>
}

// placeholderNames are the path placeholders restored, in the order tried.
var placeholderNames = []string{sanitize.PlaceholderCodexHome, sanitize.PlaceholderCwd, sanitize.PlaceholderTmp, sanitize.PlaceholderHome}

// hasPathPlaceholder reports whether a recorded line holds a path placeholder.
func hasPathPlaceholder(line []byte) bool {
	if bytes.IndexByte(line, '<') < 0 {
		return false
	}
	for _, p := range placeholderNames {
		if bytes.Contains(line, []byte(p)) {
			return true
		}
	}
	return false
}

// resolvePaths fills in p's empty fields but CodexHome when neither it nor
// $CODEX_HOME is set: that private directory is made when a frame first needs it
// (privateCodexHome).
func resolvePaths(p Paths) (Paths, error) {
	if p.Cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return p, fmt.Errorf("the working directory: %w", err)
		}
		p.Cwd = wd
	}
	if p.Tmp == "" {
		p.Tmp = os.TempDir()
	}
	if p.Home == "" {
		p.Home = os.Getenv("HOME")
		if p.Home == "" {
			p.Home, _ = os.UserHomeDir()
		}
		if p.Home == "" {
			p.Home = p.Tmp
		}
	}
	if p.CodexHome == "" {
		p.CodexHome = os.Getenv("CODEX_HOME")
	}
	for _, f := range []*string{&p.Cwd, &p.CodexHome, &p.Home, &p.Tmp} {
		if a, err := filepath.Abs(*f); err == nil && *f != "" {
			*f = a
		}
	}
	return p, nil
}

// restorations are the byte replacements of the placeholders, as JSON string content.
func (p Paths) restorations() []substitution {
	vals := map[string]string{sanitize.PlaceholderCwd: p.Cwd, sanitize.PlaceholderCodexHome: p.CodexHome,
		sanitize.PlaceholderHome: p.Home, sanitize.PlaceholderTmp: p.Tmp}
	out := make([]substitution, 0, len(placeholderNames))
	for _, name := range placeholderNames {
		out = append(out, substitution{[]byte(name), jsonx.ShortBF.AppendContent(nil, vals[name])})
	}
	return out
}

// restore replaces, in b (already echo-substituted), each path placeholder the live
// client never filled in with the replay's own path.
func (s *session) restore(b []byte) []byte {
	if s.restores == nil {
		if s.paths.CodexHome == "" && bytes.Contains(b, []byte(sanitize.PlaceholderCodexHome)) {
			s.privateCodexHome()
		}
		if s.paths.CodexHome != "" {
			s.restores = s.paths.restorations()
		}
	}
	rs := s.restores
	if rs == nil {
		rs = s.paths.restorations()
	}
	for _, r := range rs {
		if len(r.live) == 0 {
			continue // no CODEX_HOME yet: this frame holds no <codex-home>
		}
		if bytes.Contains(b, r.recorded) {
			b = bytes.ReplaceAll(b, r.recorded, r.live)
		}
	}
	return b
}

// privateCodexHome makes the directory served for <codex-home> when neither
// Paths.CodexHome nor $CODEX_HOME says one; Serve removes it when it returns. If it
// cannot be made, the temporary directory stands in.
func (s *session) privateCodexHome() {
	dir, err := os.MkdirTemp("", "codexrec-replay-codex-home-")
	if err != nil {
		if s.srv.Log != nil {
			fmt.Fprintf(s.srv.Log, "replay: warning: a private CODEX_HOME: %v; serving %s for <codex-home>\n", err, s.paths.Tmp)
		}
		s.paths.CodexHome = s.paths.Tmp
		return
	}
	s.paths.CodexHome = dir
	s.cleanup = append(s.cleanup, func() { os.RemoveAll(dir) })
}
