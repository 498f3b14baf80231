package recorder_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/codexrec/codexrec/recorder"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.html")
	if err := os.WriteFile(target, []byte("the link's target\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "page.html")
	if err := os.Symlink(target, page); err != nil {
		t.Fatal(err)
	}
	write := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	// Without replace, an existing name (a link too) is an error.
	if err := recorder.WriteFile(page, false, 0, write("new")); !errors.Is(err, recorder.ErrExists) {
		t.Errorf("without replace: %v, want ErrExists", err)
	}
	// A failed write leaves everything as it was, and no temporary file.
	boom := errors.New("boom")
	if err := recorder.WriteFile(page, true, 0, func(w io.Writer) error { io.WriteString(w, "half"); return boom }); !errors.Is(err, boom) {
		t.Errorf("failed write: %v", err)
	}
	if fi, err := os.Lstat(page); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("a failed write replaced the link: %v %v", fi, err)
	}
	// With replace, the link itself is replaced: its target is untouched.
	if err := recorder.WriteFile(page, true, 0, write("new page\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "the link's target\n" {
		t.Errorf("written through the link: target now %q", b)
	}
	fi, err := os.Lstat(page)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Errorf("page %v %v: want a regular 0600 file", fi, err)
	}
	if b, _ := os.ReadFile(page); string(b) != "new page\n" {
		t.Errorf("page holds %q", b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Errorf("files left: %v", ents)
	}
	// A directory is never replaced.
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o700)
	if err := recorder.WriteFile(sub, true, 0, write("x")); !errors.Is(err, recorder.ErrNotReplaceable) {
		t.Errorf("onto a directory: %v", err)
	}
}
