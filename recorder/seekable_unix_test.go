//go:build unix

package recorder_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/codexrec/codexrec/recorder"
)

// TestSeekable: a regular file is its own path; a named pipe is read to its end
// into a private 0600 copy that done removes; a missing path is left to the reader.
func TestSeekable(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", t.TempDir())
	file := filepath.Join(dir, "r.jsonl")
	os.WriteFile(file, []byte("{}\n"), 0o600)
	if src, done, err := recorder.Seekable(file); err != nil || src != file {
		t.Errorf("regular file: %q, %v", src, err)
	} else {
		done()
	}
	if src, _, err := recorder.Seekable(filepath.Join(dir, "missing")); err != nil || src != filepath.Join(dir, "missing") {
		t.Errorf("missing file: %q, %v", src, err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	content := []byte(`{"type":"header","format":1}` + "\n")
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			w.Write(content)
			w.Close()
		}
	}()
	src, done, err := recorder.Seekable(fifo)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(src)
	if b, _ := os.ReadFile(src); err != nil || string(b) != string(content) || fi.Mode().Perm() != 0o600 || src == fifo {
		t.Errorf("pipe copied to %q (%v): %q", src, fi.Mode(), b)
	}
	done()
	if _, err := os.Stat(filepath.Dir(src)); !os.IsNotExist(err) {
		t.Errorf("the copy's directory is left: %v", err)
	}
}

// TestFiles: the recordings under a directory are its regular *.jsonl files at any
// depth and the links to such files, sorted; a pipe so named (or a link to one) is
// left out, since opening it would wait for a writer.
func TestFiles(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub"), 0o700)
	for _, n := range []string{"b.jsonl", "sub/a.jsonl", "notes.txt"} {
		os.WriteFile(filepath.Join(dir, n), []byte("{}\n"), 0o600)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.jsonl"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	os.Symlink("b.jsonl", filepath.Join(dir, "link.jsonl"))
	os.Symlink("pipe.jsonl", filepath.Join(dir, "linkpipe.jsonl"))
	got, err := recorder.Files(dir)
	want := []string{filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "link.jsonl"), filepath.Join(dir, "sub/a.jsonl")}
	if err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Files: %q, %v; want %q", got, err, want)
	}
}
