package delta_test

import (
	"bytes"
	"testing"

	"github.com/codexrec/codexrec/schema/internal/delta"
)

func TestRoundTrip(t *testing.T) {
	cases := [][2]string{
		{"", ""},
		{"", "a\nb\n"},
		{"a\nb\nc\nd\ne\n", ""},
		{"a\nb\nc\nd\ne\n", "a\nb\nc\nX\nd\ne\n"},
		{"a\nb\nc\nd\ne", "a\nb\nc\nd\ne"},
		{"a\nb\nc\nd\ne\n", "a\nb\nc\nd\ne"},
		{"x\ny\nz\n", "q"},
		{"}\n}\n}\n{\n", "{\n}\n}\n}\n}\n"},
		{"1\n2\n3\n4\n5\n6\n7\n", "5\n6\n7\n1\n2\n3\n4\n"},
	}
	for _, c := range cases {
		d := delta.Encode([]byte(c[0]), []byte(c[1]))
		got, err := delta.Decode([]byte(c[0]), d)
		if err != nil || !bytes.Equal(got, []byte(c[1])) {
			t.Errorf("base %q target %q: delta %q decodes to %q, %v", c[0], c[1], d, got, err)
		}
	}
}

func TestDecodeCorrupt(t *testing.T) {
	for _, d := range []string{"c 0 9\n", "i 2\nonly one\n", "x\n", "c 0 1", "e\n", "c 0\n", "c 0 x\n",
		"c -1 1\n", "c 1 -1\n", "c 9223372036854775807 1\n", "c 0 9223372036854775807\n"} {
		if _, err := delta.Decode([]byte("a\n"), []byte(d)); err == nil {
			t.Errorf("%q decoded", d)
		}
	}
}

func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("a\nb\nc\nd\n"), []byte("a\nb\nX\nc\nd"))
	f.Fuzz(func(t *testing.T, base, target []byte) {
		got, err := delta.Decode(base, delta.Encode(base, target))
		if err != nil || !bytes.Equal(got, target) {
			t.Fatalf("round trip: %q, %v", got, err)
		}
	})
}

// FuzzDecode: a damaged delta is an error, never a panic or a line out of range.
func FuzzDecode(f *testing.F) {
	f.Add([]byte("a\nb\n"), []byte("c 0 2\ni 1\nx\ne\n"))
	f.Add([]byte("a\n"), []byte("c 9223372036854775807 1\n"))
	f.Fuzz(func(t *testing.T, base, d []byte) {
		delta.Decode(base, d)
	})
}
