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
