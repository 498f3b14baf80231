package wire_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/codexrec/codexrec/wire"
)

// framed is what a proxy would have forwarded and tapped reading input with a Framer.
type framed struct {
	forwarded []byte
	lines     [][]byte
	spooled   int // carried lines that came back in mapped memory
	err       error
}

func frame(t *testing.T, r io.Reader, bufSize int) framed {
	t.Helper()
	f := wire.NewFramer(r)
	var got framed
	buf := make([]byte, 0, bufSize)
	for calls := 0; ; calls++ {
		if calls > 1<<20 {
			t.Fatal("Next never returned an error")
		}
		data, carried, whole, err := f.Next(buf)
		got.forwarded = append(got.forwarded, data...)
		if carried != nil {
			got.lines = append(got.lines, bytes.Clone(carried))
			if wire.IsLarge(carried) {
				got.spooled++
				wire.Release(carried)
			}
		}
		for rest := whole; len(rest) > 0; {
			n := bytes.IndexByte(rest, '\n') + 1
			if n == 0 {
				t.Fatalf("whole ends without a newline: %q", rest)
			}
			got.lines = append(got.lines, bytes.Clone(rest[:n]))
			rest = rest[n:]
		}
		if err != nil {
			got.err = err
			return got
		}
	}
}

// The lines a Framer taps are the input's lines, in order, whatever the reads' sizes,
// and what it forwards is the input byte for byte; a stream ending inside a line has
// that line tapped last, with the stream's error.
func TestFramerLines(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 300<<10)
	cases := []struct {
		name  string
		input string
	}{
		{"empty", ""},
		{"one", "a\n"},
		{"several", "a\nbb\nccc\n"},
		{"unfinished last", "a\nbb\ncc"},
		{"only unfinished", "abc"},
		{"blank lines", "\n\n\na\n\n"},
		{"long between short", "a\n" + string(long) + "\nb\n" + string(long) + "\n"},
		{"long unfinished", "a\n" + string(long)},
	}
	for _, c := range cases {
		want := bytes.SplitAfter([]byte(c.input), []byte("\n"))
		if len(want) > 0 && len(want[len(want)-1]) == 0 {
			want = want[:len(want)-1]
		}
		for _, size := range []int{1, 7, 4096, 64 << 10} {
			rng := rand.New(rand.NewPCG(uint64(size), 9))
			got := frame(t, &choppy{r: bytes.NewReader([]byte(c.input)), rng: rng}, size)
			if got.err != io.EOF {
				t.Errorf("%s/%d: err %v, want EOF", c.name, size, got.err)
			}
			if !bytes.Equal(got.forwarded, []byte(c.input)) {
				t.Errorf("%s/%d: forwarded %d bytes, not the %d read", c.name, size, len(got.forwarded), len(c.input))
			}
			if len(got.lines) != len(want) {
				t.Fatalf("%s/%d: %d lines, want %d", c.name, size, len(got.lines), len(want))
			}
			for i := range want {
				if !bytes.Equal(got.lines[i], want[i]) {
					t.Errorf("%s/%d: line %d is %d bytes %.20q, want %d bytes %.20q", c.name, size, i, len(got.lines[i]), got.lines[i], len(want[i]), want[i])
				}
			}
		}
	}
}

// A read error other than EOF ends the stream the same way: everything read before it
// forwarded and tapped, the unfinished line last.
func TestFramerReadError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(bytes.NewReader([]byte("a\nbc")), &failing{err: boom})
	got := frame(t, r, 1024)
	if got.err != boom {
		t.Fatalf("err %v, want boom", got.err)
	}
	if len(got.lines) != 2 || string(got.lines[0]) != "a\n" || string(got.lines[1]) != "bc" {
		t.Fatalf("lines %q", got.lines)
	}
}

type failing struct{ err error }

func (f *failing) Read([]byte) (int, error) { return 0, f.err }

// A line longer than SpoolMin is collected in a temporary file and comes back mapped
// (on Linux), byte for byte, while every read of it was forwarded as it came.
func TestFramerSpoolsLongLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	long := make([]byte, wire.SpoolMin*2+12345)
	for i := range long {
		long[i] = 'a' + byte(rng.IntN(26))
	}
	long[len(long)-1] = '\n'
	input := append(append([]byte("first\n"), long...), "last\n"...)
	got := frame(t, &choppy{r: bytes.NewReader(input), rng: rng}, 256<<10)
	if !bytes.Equal(got.forwarded, input) {
		t.Fatal("forwarded bytes differ from the input")
	}
	if len(got.lines) != 3 || !bytes.Equal(got.lines[1], long) || string(got.lines[2]) != "last\n" {
		t.Fatalf("got %d lines; the long one is %d bytes, want %d", len(got.lines), len(got.lines[1]), len(long))
	}
	if runtime.GOOS == "linux" && got.spooled != 1 {
		t.Errorf("%d lines came back mapped, want the long one", got.spooled)
	}
}

// FuzzFramer checks the Framer against bytes.SplitAfter, with read sizes drawn from
// the input: the lines tapped are the input's, and what is forwarded is the input.
func FuzzFramer(f *testing.F) {
	f.Add([]byte("a\nbb\nccc"), uint64(1))
	f.Add([]byte("\n\n{\"id\":1}\n"), uint64(7))
	f.Add([]byte("no newline at all"), uint64(3))
	f.Fuzz(func(t *testing.T, input []byte, seed uint64) {
		want := bytes.SplitAfter(input, []byte("\n"))
		if len(want) > 0 && len(want[len(want)-1]) == 0 {
			want = want[:len(want)-1]
		}
		rng := rand.New(rand.NewPCG(seed, seed>>7))
		got := frame(t, &choppy{r: bytes.NewReader(input), rng: rng}, 1+int(seed%64))
		if !bytes.Equal(got.forwarded, input) {
			t.Fatalf("forwarded %q, want %q", got.forwarded, input)
		}
		if len(got.lines) != len(want) {
			t.Fatalf("%d lines, want %d", len(got.lines), len(want))
		}
		for i := range want {
			if !bytes.Equal(got.lines[i], want[i]) {
				t.Fatalf("line %d %q, want %q", i, got.lines[i], want[i])
			}
		}
	})
}
