//go:build unix

package sanitize_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/codexrec/codexrec/sanitize"
)

// TestGuardPipe: the guard reads a named pipe to its end (scan <(cmd), scan
// /dev/stdin from a pipe), where it read nothing before and said clean: a size of
// 0 is no guide to a pipe's end. A device is refused, not read by its size (0) as
// an empty file. Nothing is left in the temporary directory.
func TestGuardPipe(t *testing.T) {
	z, err := sanitize.New(sanitize.Options{Salt: "pipe"})
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	key := "sk-proj-Zq7WxAbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH"
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		for range 2000 { // more than a pipe holds: the writer blocks until the guard reads
			w.WriteString(`{"type":"frame","msg":{"text":"nothing here, line after line"}}` + "\n")
		}
		w.WriteString(`{"type":"frame","msg":{"text":"the key ` + key + `"}}` + "\n")
	}()
	var le *sanitize.LeakError
	if err := z.Guard(fifo); !errors.As(err, &le) || len(le.Leaks) != 1 || le.Leaks[0].Line != 2001 {
		t.Errorf("Guard(fifo): %v, want one leak on line 2001", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if err := z.Guard("/dev/zero"); !errors.Is(err, sanitize.ErrDevice) {
			t.Errorf("Guard(/dev/zero): %v, want ErrDevice", err)
		}
	}
}
