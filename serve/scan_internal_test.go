package serve

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestLogicalPath(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		temp     bool
	}{
		{"d/a.jsonl", "d/a.jsonl", false},
		{"d/.a.jsonl.123456.tmp", "d/a.jsonl", true},
		{"d/.a.b.jsonl.x.tmp", "d/a.b.jsonl", true},
		{"d/.a.jsonl", "", false},     // hidden, not a temporary file
		{"d/a.json", "", false},       // not a recording's name
		{"d/.a.txt.1.tmp", "", false}, // the temporary file of something else
		{"d/..tmp", "", false},        // nothing inside
		{"d/a.jsonl.quarantine", "", false},
	} {
		got, temp := logicalPath(tc.in)
		if got != tc.want || (got != "" && temp != tc.temp) {
			t.Errorf("logicalPath(%q) = %q, %v; want %q, %v", tc.in, got, temp, tc.want, tc.temp)
		}
	}
}

// FuzzLogicalPath: any file name maps to nothing or to a .jsonl recording in the same
// directory.
func FuzzLogicalPath(f *testing.F) {
	for _, s := range []string{"a.jsonl", ".a.jsonl.1.tmp", "..tmp", ".x.tmp", ".jsonl.tmp", "...jsonl..tmp"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if strings.ContainsRune(name, filepath.Separator) || name == "" {
			return
		}
		p := filepath.Join("dir", name)
		got, _ := logicalPath(p)
		if got == "" {
			return
		}
		if filepath.Dir(got) != filepath.Dir(p) || !strings.HasSuffix(got, ".jsonl") || strings.HasPrefix(filepath.Base(got), ".") && !strings.HasPrefix(name, "..") {
			t.Fatalf("logicalPath(%q) = %q", p, got)
		}
	})
}
