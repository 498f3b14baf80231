package schema_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/codexrec/codexrec/schema"
)

// A quoted value is cut at 200 bytes, never inside a character, and at its first newline.
func TestOneLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"short", "short"},
		{"first\nsecond", "first"},
		{strings.Repeat("a", 199) + "éé", strings.Repeat("a", 199) + "..."},
		{strings.Repeat("a", 200) + "é", strings.Repeat("a", 200) + "..."},
	} {
		got := schema.OneLine(tc.in)
		if got != tc.want || !utf8.ValidString(got) {
			t.Errorf("OneLine(%.20q...) = %.20q... (%d bytes), want %d bytes", tc.in, got, len(got), len(tc.want))
		}
	}
}
