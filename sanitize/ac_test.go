package sanitize

import (
	"bytes"
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestScanLanes: the four-lane scan of a long text finds exactly what one pass does,
// in the same order, patterns straddling the lane boundaries included.
func TestScanLanes(t *testing.T) {
	z, err := New(Options{Secrets: []Secret{{"A", "fake-access-token-0123456789"}}, Maps: []Map{{"/tmp/x", "<t>"}}})
	if err != nil {
		t.Fatal(err)
	}
	m := z.prefilter(false).m.matcher()
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"sk-", "key=", "token: ", `"env"`, "://", "/tmp/x", "abc ", "PRIVATE KEY", "eyJ", "  ", "Bearer ", "xyz", "fake-access-token-0123456789", "OD", "method", `\n`, "00"}
	for i := range 600 {
		var b bytes.Buffer
		// Half of the texts are short: lanes start from about a hundred bytes.
		n := r.IntN(20000)
		if i%2 == 1 {
			n = r.IntN(2048)
		}
		for b.Len() < n {
			b.WriteString(words[r.IntN(len(words))])
		}
		text := b.Bytes()
		a1, h1 := m.scanFrom(text, m.start, 0, len(text), nil)
		a2, h2 := m.scan(text, nil)
		if a1 != a2 || !slices.Equal(h1, h2) {
			t.Fatalf("%d bytes: the lanes found %d hits, one pass %d", len(text), len(h2), len(h1))
		}
	}
	// Every length where the lanes begin, texts dense in patterns: hits in each
	// lane's first bytes (read before the part it reports) and across its ends.
	for n := 0; n < 600; n++ {
		var b bytes.Buffer
		for b.Len() < n {
			b.WriteString(words[r.IntN(len(words))])
		}
		text := b.Bytes()[:n]
		a1, h1 := m.scanFrom(text, m.start, 0, len(text), nil)
		a2, h2 := m.scan(text, nil)
		if a1 != a2 || !slices.Equal(h1, h2) {
			t.Fatalf("%d bytes: the lanes found %v, one pass %v", len(text), h2, h1)
		}
	}
}

// TestWordStartPatterns: a pattern marked for word starts (newMatcher's starts) is
// found exactly where the same automaton without the mark finds it and a word may
// start before it (the text's start, a non-word byte, an escape's letter after a
// backslash), so never where ruleCanStart's wordStart would accept it and the
// mark's absence would have found it; the other patterns are found as before. On
// the sanitizer's own literals and random sets.
func TestWordStartPatterns(t *testing.T) {
	own := func() *lazyMatcher {
		z, err := New(Options{})
		if err != nil {
			t.Fatal(err)
		}
		return z.prefilter(false).m
	}()
	if !slices.Contains(own.starts, true) {
		t.Fatal("no literal of the sanitizer's is found at word starts only")
	}
	r := rand.New(rand.NewPCG(7, 8))
	sets, starts := [][]string{own.lits}, [][]bool{own.starts}
	alphabet := "abnOD0-\\\" \x00\xff"
	for range 300 {
		var set []string
		var st []bool
		for n := r.IntN(12); len(set) < n; {
			b := make([]byte, 1+r.IntN(4))
			for i := range b {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
			set, st = append(set, string(b)), append(st, r.IntN(2) == 0)
		}
		sets, starts = append(sets, set), append(starts, st)
	}
	words := []string{"OD", "od", "method", " OD", `\nOD`, `\\nOD`, `\NOD`, "xOD", "00", ":00", "a", "\xff", "-", "\x00", `\`, "n", "sk-", "AC"}
	for si, set := range sets {
		marked, plain := newMatcher(set, starts[si]), newMatcher(set, nil)
		for range 60 {
			text := randomText(r, 400, set, words)
			_, got := marked.scan(text, nil)
			_, all := plain.scan(text, nil)
			var want []hit
			for _, h := range all {
				occ := h.end - len(set[h.id])
				switch {
				case !starts[si][h.id]:
				case occ == 0 || !isWordByte(text[occ-1]):
				case occ >= 2 && text[occ-2] == '\\' && strings.IndexByte(escapeLetters, foldByte(text[occ-1])) >= 0:
				default:
					if wordStart(text, occ) {
						t.Fatalf("set %q, text %q: %q at %d starts a word but is left out", set, text, set[h.id], occ)
					}
					continue
				}
				want = append(want, h)
			}
			byEnd := func(a, b hit) int { return cmp.Or(a.end-b.end, a.id-b.id) }
			slices.SortFunc(got, byEnd)
			slices.SortFunc(want, byEnd)
			if !slices.Equal(got, want) {
				t.Fatalf("set %q starts %v, text %q: marked %v, want %v", set, starts[si], text, got, want)
			}
		}
	}
}

// randomText is up to n bytes (n random) of set's patterns (a third of the pieces)
// and words.
func randomText(r *rand.Rand, n int, set, words []string) []byte {
	var b bytes.Buffer
	for n := r.IntN(n); b.Len() < n; {
		if r.IntN(3) == 0 && len(set) > 0 {
			b.WriteString(set[r.IntN(len(set))])
		} else {
			b.WriteString(words[r.IntN(len(words))])
		}
	}
	return b.Bytes()
}
