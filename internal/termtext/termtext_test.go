package termtext_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/codexrec/codexrec/internal/termtext"
)

const key = "ghp_R8x2Kq9LmZ4vT7wYb3NcH6pJ1sD5fG0aQeUi"

func TestWriterModes(t *testing.T) {
	in := "method \x1b]52;c;b3duZWQ=\x07 \u009b31m \u202e " + key + "\n"
	tests := []struct {
		mode    termtext.Mode
		showKey bool
	}{{termtext.Mask, false}, {termtext.Reveal, true}, {termtext.JSON, true}}
	for _, tt := range tests {
		var b bytes.Buffer
		w := termtext.New(&b, tt.mode)
		// Written a byte at a time: a line is processed whole, so a key split
		// across writes is still found.
		for i := range len(in) {
			w.Write([]byte{in[i]})
		}
		w.Flush()
		out := b.String()
		if strings.ContainsAny(out, "\x1b\x07\u009b\u202e") {
			t.Errorf("mode %d: raw control in %q", tt.mode, out)
		}
		if strings.Contains(out, key) != tt.showKey {
			t.Errorf("mode %d: key shown %v, want %v: %q", tt.mode, !tt.showKey, tt.showKey, out)
		}
		if !strings.HasSuffix(out, "\n") {
			t.Errorf("mode %d: lost the newline: %q", tt.mode, out)
		}
	}
}

// TestJSONKeepsValues: JSON mode writes a document that decodes to the same value.
func TestJSONKeepsValues(t *testing.T) {
	v := map[string]string{"m": "a\x1b[2Jb\u0085c\u202ed " + key}
	doc, _ := json.Marshal(v)
	var b bytes.Buffer
	w := termtext.New(&b, termtext.JSON)
	w.Write(append(doc, '\n'))
	w.Flush()
	var got map[string]string
	if err := json.Unmarshal(b.Bytes(), &got); err != nil || got["m"] != v["m"] {
		t.Errorf("decoded %q (%v), want %q", got["m"], err, v["m"])
	}
	if bytes.ContainsAny(b.Bytes(), "\x1b\u0085\u202e") {
		t.Errorf("raw control in %q", b.Bytes())
	}
}

// TestColorPassesOwnSGROnly: with Color, the writer's colour sequences pass; what
// else a line holds (a conceal, an OSC) is escaped.
func TestColorPassesOwnSGROnly(t *testing.T) {
	var b bytes.Buffer
	w := termtext.New(&b, termtext.Mask)
	w.Color = true
	w.Write([]byte("\x1b[1;32m+ added\x1b[0m \x1b[8mhidden\x1b[0m \x1b]0;title\x07\n"))
	w.Flush()
	out := b.String()
	if !strings.HasPrefix(out, "\x1b[1;32m+ added\x1b[0m ") {
		t.Errorf("colour lost: %q", out)
	}
	if strings.Contains(out, "\x1b[8m") || strings.Contains(out, "\x1b]") {
		t.Errorf("a recorded sequence passed: %q", out)
	}
}

// TestLongLineAndConcurrency: a line past the buffer is written in pieces; writers
// on many goroutines never interleave inside a line.
func TestLongLineAndConcurrency(t *testing.T) {
	var b bytes.Buffer
	w := termtext.New(&b, termtext.Reveal)
	long := strings.Repeat("word ", 500_000) // 2.5 MB, no newline
	w.Write([]byte(long))
	if b.Len() == 0 {
		t.Errorf("nothing written of a %d-byte line", len(long))
	}
	w.Write([]byte("\n"))
	if b.String() != long+"\n" {
		t.Errorf("long line changed: %d bytes, want %d", b.Len(), len(long)+1)
	}
	b.Reset()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				w.Write([]byte(strings.Repeat(string(rune('a'+i)), 50) + "\n"))
			}
		}()
	}
	wg.Wait()
	for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if len(l) != 50 || strings.Count(l, l[:1]) != 50 {
			t.Fatalf("interleaved line %q", l)
		}
	}
}
