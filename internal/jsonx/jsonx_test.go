package jsonx_test

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/codexrec/codexrec/internal/jsonx"
)

func TestAppendContent(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    jsonx.Escaping
		in   string
		want string
	}{
		{"plain", 0, "abc <&> é", `abc <&> é`},
		{"quote and backslash", 0, `a"b\c`, `a\"b\\c`},
		{"short forms", 0, "\n\r\t", `\n\r\t`},
		{"other controls", 0, "\x00\x1f\b\f", `\u0000\u001f\u0008\u000c`},
		{"DEL kept", 0, "a\x7fb", "a\x7fb"},
		{"ShortBF", jsonx.ShortBF, "\b\f\x01\n", `\b\f\u0001\n`},
		{"EscapeDEL", jsonx.EscapeDEL, "a\x7fb\b", `a\u007fb\u0008`},
		{"both", jsonx.ShortBF | jsonx.EscapeDEL, "\x7f\f", `\u007f\f`},
		{"empty", 0, "", ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(tc.e.AppendContent([]byte("x"), tc.in)); got != "x"+tc.want {
				t.Errorf("AppendContent(%q) = %q, want %q", tc.in, got, "x"+tc.want)
			}
			if got := string(tc.e.AppendString(nil, tc.in)); got != `"`+tc.want+`"` {
				t.Errorf("AppendString(%q) = %q, want %q", tc.in, got, `"`+tc.want+`"`)
			}
		})
	}
	if got := string(jsonx.AppendString(nil, "a\"\x01")); got != `"a\"\u0001"` {
		t.Errorf("AppendString = %s", got)
	}
	if got := string(jsonx.AppendContent(nil, "a\"\x01")); got != `a\"\u0001` {
		t.Errorf("AppendContent = %s", got)
	}
}

func TestHex4(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want rune
		ok   bool
	}{
		{"0041", 'A', true},
		{"d83Dxyz", 0xd83d, true},
		{"FFFF", 0xffff, true},
		{"00g1", 0, false},
		{"123", 0, false},
		{"", 0, false},
	} {
		if r, ok := jsonx.Hex4([]byte(tc.in)); r != tc.want || ok != tc.ok {
			t.Errorf("Hex4(%q) = %#x, %v; want %#x, %v", tc.in, r, ok, tc.want, tc.ok)
		}
	}
}

// FuzzAppendString checks that every escaping decodes back to the input.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "\x00\b\f\n\r\t\x7f\"\\", "é€𝄞<>&"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, e := range []jsonx.Escaping{0, jsonx.ShortBF, jsonx.EscapeDEL, jsonx.ShortBF | jsonx.EscapeDEL} {
			b := e.AppendString(nil, s)
			var got string
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatalf("escaping %d of %q: %s: %v", e, s, b, err)
			}
			if utf8.ValidString(s) && got != s {
				t.Fatalf("escaping %d of %q decodes to %q", e, s, got)
			}
		}
	})
}

func TestPointer(t *testing.T) {
	tests := []struct {
		tokens []string
		want   string
	}{
		{nil, ""},
		{[]string{"params", "item", "startedAtMs"}, "/params/item/startedAtMs"},
		{[]string{"a/b", "c~d", ""}, "/a~1b/c~0d/"},
		{[]string{"~1"}, "/~01"},
	}
	for _, tt := range tests {
		if got := jsonx.Pointer(tt.tokens...); got != tt.want {
			t.Errorf("Pointer(%q) = %q, want %q", tt.tokens, got, tt.want)
		}
		for _, tok := range tt.tokens {
			if back := jsonx.UnescapeToken(jsonx.EscapeToken(tok)); back != tok {
				t.Errorf("UnescapeToken(EscapeToken(%q)) = %q", tok, back)
			}
		}
	}
}
