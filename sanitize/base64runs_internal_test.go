package sanitize

import (
	"math/rand/v2"
	"testing"
)

// nextB64RunByByte is nextB64Run as it was, reading every byte: the reference the
// skipping one must agree with.
func nextB64RunByByte(b []byte, i int) (s, e int) {
	for i < len(b) {
		if b64Class[b[i]] == 0 {
			i++
			continue
		}
		j := i
		var seen uint8
		for j < len(b) {
			k := b64Class[b[j]]
			if k == 0 {
				break
			}
			seen |= k
			j++
		}
		// Wrapped base64 goes on across line breaks (wrappedEnd is the spec).
		j = wrappedEnd(b, i, j)
		for _, c := range b[i:j] {
			seen |= b64Class[c]
		}
		if n := j - i; n >= minB64Run && n <= maxB64Run && seen&7 == 7 {
			return i, j
		}
		i = j
	}
	return -1, -1
}

// The skipping search finds the same runs as reading every byte, from every start,
// on text of every density of base64 characters.
func TestNextB64RunAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	alphabet := []byte("ABCXYZabcxyz0189+/-_= .:\\\"\n\t")
	for range 3000 {
		b := make([]byte, rng.IntN(300))
		breakEvery := 1 + rng.IntN(60)
		for i := range b {
			b[i] = alphabet[rng.IntN(21)]
			if rng.IntN(breakEvery) == 0 {
				b[i] = alphabet[21+rng.IntN(len(alphabet)-21)]
			}
		}
		for i := 0; i <= len(b); i++ {
			s, e := nextB64Run(b, i)
			ws, we := nextB64RunByByte(b, i)
			if s != ws || e != we {
				t.Fatalf("nextB64Run(%q, %d) = %d, %d; reading every byte: %d, %d", b, i, s, e, ws, we)
			}
		}
	}
}

func BenchmarkNextB64Run(b *testing.B) {
	text := []byte(`ok  \tgithub.com/example/project/internal/pkg042\t0.042s\tcoverage: 42.1% of statements\n` +
		`The quick brown fox jumps over the lazy dog; see https://example.com/docs/page?id=42 for more.\n`)
	for len(text) < 64<<10 {
		text = append(text, text...)
	}
	for _, f := range []struct {
		name string
		fn   func([]byte, int) (int, int)
	}{{"skip", nextB64Run}, {"bytewise", nextB64RunByByte}} {
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for range b.N {
				f.fn(text, 0)
			}
		})
	}
}

// hasB64Run, which rules out text without a capital letter first, says what the
// search from the start says, on text with and without capitals (in every position
// of a word, and bytes above 0x7f that are capitals' with the top bit set).
func TestHasB64RunAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	lower := []byte("abcxyz0189+/-_= .:\\\"\n\t\xc1\xda\x80\xff@[`{")
	for i := range 5000 {
		b := make([]byte, rng.IntN(400))
		for k := range b {
			b[k] = lower[rng.IntN(len(lower))]
		}
		if i%2 == 0 && len(b) > 0 {
			for range 1 + rng.IntN(3) {
				b[rng.IntN(len(b))] = byte('A' + rng.IntN(26))
			}
		}
		s, _ := nextB64Run(b, 0)
		if got := hasB64Run(b); got != (s >= 0) {
			t.Fatalf("hasB64Run(%q) = %v, the search from the start finds %d", b, got, s)
		}
		want := false
		for _, c := range b {
			want = want || c >= 'A' && c <= 'Z'
		}
		if got := hasUpper(b); got != want {
			t.Fatalf("hasUpper(%q) = %v", b, got)
		}
	}
	// Every byte value in every position of a word.
	for c := 0; c < 256; c++ {
		for at := 0; at < 40; at++ {
			b := make([]byte, 40)
			for k := range b {
				b[k] = 'a'
			}
			b[at] = byte(c)
			if got, want := hasUpper(b), c >= 'A' && c <= 'Z'; got != want {
				t.Fatalf("hasUpper with %#x at %d = %v", c, at, got)
			}
		}
	}
}

// hasB64Run agrees with the search from the start on text made of wrapped base64
// (capitals in its first line only, its last only, or nowhere), plain runs, words and
// every kind of break between them: hard bytes, newlines, escaped \n, quotes.
func TestHasB64RunAgreesWrapped(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	line := func(width int, classes string) string {
		b := make([]byte, width)
		for i := range b {
			b[i] = classes[rng.IntN(len(classes))]
		}
		return string(b)
	}
	pieces := func() string {
		switch rng.IntN(6) {
		case 0: // wrapped base64, lines of one width, the last shorter
			width := 4 * (10 + rng.IntN(8))
			sep := []string{"\n", `\n`}[rng.IntN(2)]
			var s string
			n := 2 + rng.IntN(3)
			for k := range n {
				classes := "abcxyz0189+/"
				if k == rng.IntN(n+1) {
					classes = "ABCabc0189"
				}
				w := width
				if k == n-1 {
					w = 1 + rng.IntN(width)
				}
				s += line(w, classes)
				if k < n-1 {
					s += sep
				}
			}
			return s
		case 1:
			return line(15+rng.IntN(30), "ABCabc019")
		case 2:
			return line(1+rng.IntN(30), "abcxyz0189-_")
		case 3:
			return []string{" ", ".", ":", `"`, "\r", "\t", ",", "\xc3\xa9"}[rng.IntN(8)]
		case 4:
			return []string{"\n", `\n`, `\`, `\"`}[rng.IntN(4)]
		default:
			return line(1+rng.IntN(8), "ABCXYZ")
		}
	}
	for range 20000 {
		var b []byte
		for range 1 + rng.IntN(8) {
			b = append(b, pieces()...)
		}
		s, _ := nextB64Run(b, 0)
		if got := hasB64Run(b); got != (s >= 0) {
			t.Fatalf("hasB64Run(%q) = %v, the search from the start finds %d", b, got, s)
		}
	}
}
