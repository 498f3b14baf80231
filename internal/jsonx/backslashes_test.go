package jsonx_test

import (
	"testing"

	"github.com/codexrec/codexrec/internal/jsonx"
)

func TestBackslashes(t *testing.T) {
	for _, c := range []struct {
		s     string
		i, lo int
		want  int
	}{
		{`a"`, 1, 0, 0},
		{`a\"`, 2, 0, 1},
		{`a\\"`, 3, 0, 2},
		{`\\\"`, 3, 0, 3},
		{`\\\"`, 3, 1, 2}, // not below lo
		{`\\\"`, 3, 3, 0},
		{`"`, 0, 0, 0},
	} {
		if got := jsonx.Backslashes([]byte(c.s), c.i, c.lo); got != c.want {
			t.Errorf("Backslashes(%q, %d, %d) = %d, want %d", c.s, c.i, c.lo, got, c.want)
		}
	}
}
