package jsonx_test

import (
	"testing"

	"github.com/codexrec/codexrec/internal/jsonx"
)

func TestValueEnd(t *testing.T) {
	cases := []struct {
		in   string
		at   int
		want int
	}{
		{`"abc",1`, 0, 5},
		{`"a\"b"x`, 0, 6},
		{`"a\\"x`, 0, 5},
		{`"a\\\"b"`, 0, 8},
		{`"open`, 0, -1},
		{`{"a":[1,"]"],"b":{}} tail`, 0, 20},
		{`[[],[[]]]`, 0, 9},
		{`{"a":1`, 0, -1},
		{`123,4`, 0, 3},
		{`true}`, 0, 4},
		{`null`, 0, 4},
		{`x:"q"`, 2, 5},
		{``, 0, -1},
		{`1`, 1, -1},
	}
	for _, c := range cases {
		if got := jsonx.ValueEnd([]byte(c.in), c.at); got != c.want {
			t.Errorf("ValueEnd(%q, %d) = %d, want %d", c.in, c.at, got, c.want)
		}
	}
}

func TestStringEndEscaped(t *testing.T) {
	cases := []struct {
		in      string
		want    int
		escaped bool
	}{
		{`"abc",1`, 5, false},
		{`"a\"b"x`, 6, true},
		{`"a\\"x`, 5, true},
		{`"a\\\"b"`, 8, true},
		{`""`, 2, false},
		{`"x" "\n"`, 3, false},
		{`"open`, -1, false},
	}
	for _, c := range cases {
		end, esc := jsonx.StringEndEscaped([]byte(c.in), 0)
		if end != c.want || esc != c.escaped {
			t.Errorf("StringEndEscaped(%q) = %d, %v; want %d, %v", c.in, end, esc, c.want, c.escaped)
		}
		if got := jsonx.StringEnd([]byte(c.in), 0); got != c.want {
			t.Errorf("StringEnd(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

// FuzzStringEnd: the end found is the first quote after the opening one that an
// even number of backslashes precedes, and escaped says whether a backslash lies
// between the two quotes.
func FuzzStringEnd(f *testing.F) {
	for _, s := range []string{`"abc"`, `"a\"b"`, `"a\\"`, `"\\\""`, `"open`, `""`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || b[0] != '"' {
			return
		}
		want, esc := -1, false
		for j, bs := 1, 0; j < len(b); j++ {
			if b[j] == '"' && bs%2 == 0 {
				want = j + 1
				break
			}
			if b[j] == '\\' {
				bs++
				esc = true
			} else {
				bs = 0
			}
		}
		end, gotEsc := jsonx.StringEndEscaped(b, 0)
		if end != want || end >= 0 && gotEsc != esc {
			t.Fatalf("%q: got %d %v, want %d %v", b, end, gotEsc, want, esc)
		}
		if e := jsonx.StringEnd(b, 0); e != want {
			t.Fatalf("%q: StringEnd %d, want %d", b, e, want)
		}
	})
}
