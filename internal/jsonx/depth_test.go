package jsonx_test

import (
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/jsonx"
)

func TestDeeperThan(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want bool
	}{
		{`{"a":[1,{"b":2}]}`, 3, false},
		{`{"a":[1,{"b":2}]}`, 2, true},
		{`{"a":"[[[[[[[[["}`, 1, false},
		{`{"a":"\"[[[[[[[["}`, 1, false},
		{`{"a":"\\"}`, 1, false},
		{`{"a":"\\\"[[[[" , "b":[[]]}`, 3, false},
		{`{"a":"\\\\"[[[[]]]]}`, 4, true},
		{`"unterminated [[[[`, 0, false},
		{strings.Repeat("[", 20_000_000), jsonx.MaxDepth, true},
	}
	for _, tt := range tests {
		if got := jsonx.DeeperThan([]byte(tt.in), tt.n); got != tt.want {
			t.Errorf("DeeperThan(%.40q, %d) = %v, want %v", tt.in, tt.n, got, tt.want)
		}
	}
}
