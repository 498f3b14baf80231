package wire_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/codexrec/codexrec/wire"
)

// A line several times longer than the point where Lines switches to mapped memory
// comes back whole and byte for byte, in pieces the reader hands out at random sizes,
// together with the short lines around it; Release then frees it.
func TestLinesLongLineMapped(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	long := make([]byte, 37<<20)
	for i := range long {
		long[i] = 'a' + byte(rng.IntN(26))
	}
	long[len(long)-1] = '\n'
	input := append(append([]byte("first\n"), long...), "last\n"...)
	lr := wire.NewLines(&choppy{r: bytes.NewReader(input), rng: rng})
	var got []byte
	sawLarge := false
	buf := make([]byte, 0, 256<<10)
	for {
		chunk, err := lr.Next(buf)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, chunk...)
		if wire.IsLarge(chunk) {
			sawLarge = true
			if !bytes.Contains(chunk, long) {
				t.Fatalf("the run holding the long line is %d bytes and lacks it", len(chunk))
			}
			wire.Release(chunk)
			if wire.IsLarge(chunk) {
				t.Fatal("still mapped after Release")
			}
			continue
		}
	}
	if !sawLarge && runtime.GOOS == "linux" {
		t.Error("a 37 MB line was not read into mapped memory")
	}
	if !bytes.Equal(got, input) {
		t.Fatalf("read %d bytes, want the %d written", len(got), len(input))
	}
	wire.Release([]byte("not mapped")) // a no-op
}

// choppy returns reads of random sizes up to 1 MB.
type choppy struct {
	r   io.Reader
	rng *rand.Rand
}

func (c *choppy) Read(p []byte) (int, error) {
	return c.r.Read(p[:min(len(p), 1+c.rng.IntN(1<<20))])
}
