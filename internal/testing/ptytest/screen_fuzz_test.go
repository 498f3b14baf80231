package ptytest

import (
	"strings"
	"testing"
)

// FuzzScreen: any output, whole or cut anywhere, leaves the screen its size and
// never panics (a program's bytes are not trusted to be well formed).
func FuzzScreen(f *testing.F) {
	for _, s := range []string{
		"abc\x1b[2;5Hxyz\x1b[1;2H\x1b[K",
		"\x1b[3;8r\x1b[8;1H\n\n\x1bM\x1b[2L\x1b[3M\x1b[r",
		"\x1b]10;?\x1b\\\x1b[?1049h\x1b[999;999H\x1b[J\x1b[1J\x1b[2K\x1b[5X",
		"héllo\r\n\b\b\x1b7\x1b[10C\x1b8\x1b[",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		sc := newScreen(5, 12)
		sc.feed([]byte(out))
		rows := strings.Split(strings.TrimSuffix(sc.Text(), "\n"), "\n")
		if len(rows) != 5 {
			t.Fatalf("%d rows", len(rows))
		}
		for _, r := range sc.cells {
			if len(r) != 12 {
				t.Fatalf("a row of %d cells", len(r))
			}
		}
	})
}
