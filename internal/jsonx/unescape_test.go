package jsonx_test

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/codexrec/codexrec/internal/jsonx"
)

func TestAppendUnescaped(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{``, ""},
		{`plain`, "plain"},
		{`a\nb\tc\rd\be\ff`, "a\nb\tc\rd\be\ff"},
		{`\"\\\/`, `"\/`},
		{`\u00e9\u20AC`, "é€"},
		{`\ud834\udd1e`, "𝄞"},
		{`\ud834`, "\uFFFD"},              // lone high surrogate
		{`\udd1e`, "\uFFFD"},              // lone low surrogate
		{`\ud834\u0041`, "\uFFFDA"},       // high surrogate, then not a low one
		{`\ud834\ud834\udd1e`, "\uFFFD𝄞"}, // the second high surrogate pairs
		{`line one\nline two\n`, "line one\nline two\n"},
	} {
		if got := string(jsonx.AppendUnescaped([]byte("x"), tc.raw)); got != "x"+tc.want {
			t.Errorf("AppendUnescaped(%q) = %q, want %q", tc.raw, got[1:], tc.want)
		}
		if got := string(jsonx.AppendUnescapedBytes([]byte("x"), []byte(tc.raw))); got != "x"+tc.want {
			t.Errorf("AppendUnescapedBytes(%q) = %q, want %q", tc.raw, got[1:], tc.want)
		}
	}
}

// FuzzAppendUnescaped holds AppendUnescaped to encoding/json's decoding of every
// valid JSON string.
func FuzzAppendUnescaped(f *testing.F) {
	for _, s := range []string{`"plain"`, `"\ud834\udd1e"`, `"\ud834x"`, `"a\\\"b\n"`, `"\udc00\ud800"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want string
		if !utf8.ValidString(s) || json.Unmarshal([]byte(s), &want) != nil || len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
			return
		}
		if got := string(jsonx.AppendUnescaped(nil, s[1:len(s)-1])); got != want {
			t.Fatalf("AppendUnescaped(%s) = %q, encoding/json: %q", s, got, want)
		}
	})
}
