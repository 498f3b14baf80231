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

// resolvePaths fills in p's empty fields. The returned cleanup removes a private
// CODEX_HOME it created.
func resolvePaths(p Paths) (Paths, func(), error) {
	cleanup := func() {}
	if p.Cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return p, cleanup, fmt.Errorf("the working directory: %w", err)
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
	if p.CodexHome == "" {
		dir, err := os.MkdirTemp("", "codexrec-replay-codex-home-")
		if err != nil {
			return p, cleanup, fmt.Errorf("a private CODEX_HOME: %w", err)
		}
		p.CodexHome = dir
		cleanup = func() { os.RemoveAll(dir) }
	}
	for _, f := range []*string{&p.Cwd, &p.CodexHome, &p.Home, &p.Tmp} {
		if a, err := filepath.Abs(*f); err == nil {
			*f = a
		}
	}
	return p, cleanup, nil
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
	for _, r := range s.restores {
		if bytes.Contains(b, r.recorded) {
			b = bytes.ReplaceAll(b, r.recorded, r.live)
		}
	}
	return b
}
