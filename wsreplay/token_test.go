package wsreplay_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/codexrec/codexrec/wsreplay"
)

// TestReadToken: the token is the file's first line, trimmed; a missing file is
// the file's error.
func TestReadToken(t *testing.T) {
	dir := t.TempDir()
	for content, want := range map[string]string{
		"  tok-1 \nsecond line\n": "tok-1",
		"tok-2":                   "tok-2",
		"tok-3\r\n":               "tok-3",
		"\nlater":                 "",
	} {
		p := filepath.Join(dir, "token")
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, err := wsreplay.ReadToken(p); err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", content, got, err, want)
		}
	}
	if _, err := wsreplay.ReadToken(filepath.Join(dir, "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
