package view_test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/view"
)

// A reply of megabytes is quoted piece by piece as strconv.Quote quotes it whole:
// multi-byte runes, invalid bytes and escapes wherever the pieces are cut.
func TestOverviewLongReplyQuoted(t *testing.T) {
	unit := "héllo \"wörld\"\n\x1b[31m\xff\xe2\x82 日本語 "
	s := strings.Repeat(unit, (1<<20)/len(unit)+7)
	for _, cut := range []int{0, 1, 2, 3, 5, 11} {
		in := s[cut:]
		o := &view.Overview{File: "f.jsonl", Frames: map[string]int{}, Replies: []string{in}}
		var b bytes.Buffer
		if err := o.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		want := "agent      " + strconv.Quote(in) + "\n"
		if !strings.HasSuffix(b.String(), want) {
			t.Fatalf("cut %d: the reply's line differs from strconv.Quote's (%d bytes in all, want a %d-byte line)", cut, b.Len(), len(want))
		}
	}
}
