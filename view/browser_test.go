package view_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/internal/testing/webdriver"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/view"
)

// writePage renders rec into dir and returns its file:// URL.
func writePage(t *testing.T, rec *recorder.Recording, name string) (string, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := view.WriteHTML(f, rec); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return "file://" + path, path
}

// waitFor polls a JavaScript condition until it returns true.
func waitFor(t *testing.T, b *webdriver.Session, what, cond string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var ok bool
		if err := b.Exec(&ok, "return !!("+cond+")"); err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s (%s)", what, cond)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// artifact keeps a test artifact (a screenshot) under the repository's git-ignored
// out/test-artifacts, or the test's temporary directory when that is not writable.
func artifact(t *testing.T, name string, data []byte) {
	t.Helper()
	dir := filepath.Join("..", "out", "test-artifacts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		dir = t.TempDir()
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		p = filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	abs, _ := filepath.Abs(p)
	t.Logf("artifact: %s", abs)
}

func domText(t *testing.T, b *webdriver.Session, js string) string {
	t.Helper()
	var s string
	if err := b.Exec(&s, js); err != nil {
		t.Fatal(err)
	}
	return s
}

func domInt(t *testing.T, b *webdriver.Session, js string) int {
	t.Helper()
	var n float64
	if err := b.Exec(&n, js); err != nil {
		t.Fatal(err)
	}
	return int(n)
}

var _ = strings.Contains
