package wire_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/codexrec/codexrec/wire"
)

// readAll reads every line from r and fails on an error other than io.EOF.
func readAll(t testing.TB, r io.Reader) [][]byte {
	t.Helper()
	lr := wire.NewReader(r)
	var lines [][]byte
	for {
		line, err := lr.ReadLine()
		if len(line) > 0 {
			lines = append(lines, line)
		}
		if err == io.EOF {
			return lines
		}
		if err != nil {
			t.Fatalf("ReadLine: %v", err)
		}
	}
}

// chunkReader returns its data in reads of pseudo-random sizes.
type chunkReader struct {
	data []byte
	rng  *rand.Rand
	max  int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := 1 + c.rng.IntN(c.max)
	n = min(n, len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

func TestReadLine(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"one line", `{"id":1}` + "\n", []string{`{"id":1}` + "\n"}},
		{"final line without newline", "a\nb", []string{"a\n", "b"}},
		{"blank lines", "\n\n{}\n", []string{"\n", "\n", "{}\n"}},
		{"crlf kept", "{}\r\n", []string{"{}\r\n"}},
		{"invalid utf-8", "\xff\xfe\n", []string{"\xff\xfe\n"}},
		{"only newline", "\n", []string{"\n"}},
		{"nul bytes", "a\x00b\n", []string{"a\x00b\n"}},
	}
	for _, tt := range tests {
		for _, split := range []struct {
			name string
			r    func(string) io.Reader
		}{
			{"whole", func(s string) io.Reader { return strings.NewReader(s) }},
			{"one byte", func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) }},
			{"data with EOF", func(s string) io.Reader { return iotest.DataErrReader(strings.NewReader(s)) }},
		} {
			t.Run(tt.name+"/"+split.name, func(t *testing.T) {
				got := readAll(t, split.r(tt.in))
				if len(got) != len(tt.want) {
					t.Fatalf("got %d lines %q, want %d %q", len(got), got, len(tt.want), tt.want)
				}
				for i := range got {
					if string(got[i]) != tt.want[i] {
						t.Errorf("line %d = %q, want %q", i, got[i], tt.want[i])
					}
				}
				// Lines, as the proxy reads: runs of the same lines, whole.
				var lines []string
				for _, run := range readChunks(t, split.r(tt.in), 4) {
					for rest := string(run); rest != ""; {
						n := strings.IndexByte(rest, '\n') + 1
						if n == 0 {
							n = len(rest)
						}
						lines = append(lines, rest[:n])
						rest = rest[n:]
					}
				}
				if strings.Join(lines, "|") != strings.Join(tt.want, "|") {
					t.Errorf("Lines: %q, want %q", lines, tt.want)
				}
			})
		}
	}
}

func TestReadLineHugeLine(t *testing.T) {
	// A 64 MiB line must pass whole: no length limit but memory.
	const size = 64 << 20
	line := make([]byte, size+1)
	for i := range size {
		line[i] = 'a' + byte(i%26)
	}
	line[size] = '\n'
	in := append(append([]byte("{}\n"), line...), "tail"...)
	got := readAll(t, bytes.NewReader(in))
	if len(got) != 3 {
		t.Fatalf("got %d lines, want 3", len(got))
	}
	if !bytes.Equal(got[1], line) {
		t.Fatalf("64 MiB line came back with %d bytes, not identical", len(got[1]))
	}
	// The caller owns it: a heap slice of its exact size, not the mapped buffer it
	// grew in (which was given back), nor an appended one with room to spare.
	// (Elsewhere than Linux it grows by appending.)
	if wire.IsLarge(got[1]) || runtime.GOOS == "linux" && cap(got[1]) != len(got[1]) {
		t.Fatalf("64 MiB line: mapped %v, cap %d for len %d", wire.IsLarge(got[1]), cap(got[1]), len(got[1]))
	}
	if string(got[2]) != "tail" {
		t.Fatalf("last line = %q", got[2])
	}
	// Lines, as the proxy reads, with its 256 KB buffer and pipe-sized reads.
	chunks := readChunks(t, &chunkReader{data: in, rng: rand.New(rand.NewPCG(1, 2)), max: 64 << 10}, 256<<10)
	var whole bool
	for _, c := range chunks {
		whole = whole || bytes.Equal(c, line)
	}
	if !whole || !bytes.Equal(bytes.Join(chunks, nil), in) {
		t.Fatalf("Lines: %d runs, the 64 MiB line not one of them whole", len(chunks))
	}
}

func TestReadLineKeepsBytesBeforeError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("a\npartial"), iotest.ErrReader(boom))
	lr := wire.NewReader(r)
	if line, err := lr.ReadLine(); string(line) != "a\n" || err != nil {
		t.Fatalf("first = %q, %v", line, err)
	}
	line, err := lr.ReadLine()
	if string(line) != "partial" || !errors.Is(err, boom) {
		t.Fatalf("second = %q, %v; want the partial bytes with the error", line, err)
	}
}

func TestLinesKeepBytesBeforeError(t *testing.T) {
	boom := errors.New("boom")
	lr := wire.NewLines(io.MultiReader(strings.NewReader("a\npartial"), iotest.ErrReader(boom)))
	if run, err := lr.Next(nil); string(run) != "a\n" || err != nil {
		t.Fatalf("first = %q, %v", run, err)
	}
	if run, err := lr.Next(nil); string(run) != "partial" || err != nil {
		t.Fatalf("second = %q, %v; want the partial line, then the error", run, err)
	}
	if run, err := lr.Next(nil); run != nil || !errors.Is(err, boom) {
		t.Fatalf("third = %q, %v; want the error", run, err)
	}
}

func TestReadLineRandomSplits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var in []byte
	for i := range 2000 {
		n := rng.IntN(300)
		if i%97 == 0 {
			n = 150_000 // longer than the read buffer
		}
		for range n {
			in = append(in, byte(rng.IntN(256)))
		}
		in = append(in, '\n')
	}
	got := bytes.Join(readAll(t, &chunkReader{data: in, rng: rng, max: 100_000}), nil)
	if !bytes.Equal(got, in) {
		t.Fatalf("concatenated lines differ from input (%d vs %d bytes)", len(got), len(in))
	}
}

// readChunks reads everything with Lines, into one buffer of capacity max reused
// from call to call (as the proxy reuses its buffers), copying each run out.
func readChunks(t testing.TB, r io.Reader, max int) [][]byte {
	t.Helper()
	lr := wire.NewLines(r)
	buf := make([]byte, 0, max)
	var chunks [][]byte
	for {
		chunk, err := lr.Next(buf)
		if len(chunk) > 0 {
			chunks = append(chunks, bytes.Clone(chunk))
			buf = chunk[:0]
		}
		if err == io.EOF {
			return chunks
		}
		if err != nil {
			t.Fatalf("Lines.Next: %v", err)
		}
	}
}

func TestLinesGathersCompleteLines(t *testing.T) {
	in := "a\nbb\nccc\npartial"
	got := readChunks(t, strings.NewReader(in), 1<<20)
	if len(got) != 2 || string(got[0]) != "a\nbb\nccc\n" || string(got[1]) != "partial" {
		t.Fatalf("chunks %q", got)
	}
	// The buffer's capacity bounds the gathering, never a line.
	got = readChunks(t, strings.NewReader("a\nbb\nccc\n"), 3)
	if len(got) != 3 || string(got[0]) != "a\n" || string(got[1]) != "bb\n" || string(got[2]) != "ccc\n" {
		t.Fatalf("chunks with max 3: %q", got)
	}
	long := strings.Repeat("x", 200_000) + "\n"
	got = readChunks(t, strings.NewReader(long+"y\n"), 1<<20)
	if len(got) != 1 || string(got[0]) != long+"y\n" {
		t.Fatalf("a line longer than the buffer, then a short one: %d chunks", len(got))
	}
}

// FuzzReadLine checks that whatever goes in comes out byte for byte, whatever the
// split of reads, and that every line but the last ends in a newline; and that
// Lines returns the same bytes in runs of whole lines.
func FuzzReadLine(f *testing.F) {
	f.Add([]byte("{\"id\":1}\n{\"method\":\"x\"}\n"), uint8(3))
	f.Add([]byte("no newline"), uint8(1))
	f.Add([]byte("\n\n\xff\n"), uint8(7))
	f.Fuzz(func(t *testing.T, in []byte, max uint8) {
		rng := rand.New(rand.NewPCG(uint64(len(in)), uint64(max)))
		lines := readAll(t, &chunkReader{data: bytes.Clone(in), rng: rng, max: int(max) + 1})
		if got := bytes.Join(lines, nil); !bytes.Equal(got, in) {
			t.Fatalf("out %q != in %q", got, in)
		}
		chunks := readChunks(t, &chunkReader{data: bytes.Clone(in), rng: rand.New(rand.NewPCG(uint64(max), 1)), max: int(max) + 1}, 1+int(max)*3)
		if got := bytes.Join(chunks, nil); !bytes.Equal(got, in) {
			t.Fatalf("Lines out %q != in %q", got, in)
		}
		for i, c := range chunks {
			if i < len(chunks)-1 && !wire.HasNewline(c) {
				t.Fatalf("chunk %d %q does not end a line", i, c)
			}
		}
		for i, l := range lines {
			nl := bytes.IndexByte(l, '\n')
			if i < len(lines)-1 && nl != len(l)-1 {
				t.Fatalf("line %d %q: newline not only at the end", i, l)
			}
			if i == len(lines)-1 && nl >= 0 && nl != len(l)-1 {
				t.Fatalf("last line %q has an inner newline", l)
			}
		}
	})
}

// TestLinesLongPartialRead: a read that ends inside a long line returns the lines
// before it and carries the partial line over whole, wherever the last newline sits.
func TestLinesLongPartialRead(t *testing.T) {
	for _, before := range []int{0, 1, 255, 256, 257, 1000, 100_000} {
		head := strings.Repeat("h", before) + "\n"
		long := strings.Repeat("x", 300_000) + "\n"
		in := head + long + "tail\n"
		chunks := readChunks(t, &chunkReader{data: []byte(in), rng: rand.New(rand.NewPCG(uint64(before), 9)), max: 64 << 10}, 256<<10)
		if got := string(bytes.Join(chunks, nil)); got != in {
			t.Fatalf("before=%d: bytes differ", before)
		}
		for i, c := range chunks {
			if !wire.HasNewline(c) || (bytes.Contains(c, []byte("x")) && bytes.Count(c, []byte("x")) != 300_000) {
				t.Fatalf("before=%d: run %d (%d bytes) cuts a line", before, i, len(c))
			}
		}
	}
}
