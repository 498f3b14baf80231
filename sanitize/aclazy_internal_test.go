package sanitize

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// TestLitIndexScan: searching literal by literal (litIndex, before a run has scanned
// enough to build the table) finds exactly what the automaton finds, in the same
// order, on the sanitizer's own literals and on random sets with shared prefixes,
// repeats, one-byte and empty patterns, every case, and patterns found at word
// starts only.
func TestLitIndexScan(t *testing.T) {
	z, err := New(Options{Secrets: []Secret{{"A", "fake-access-token-0123456789"}}, Maps: []Map{{"/tmp/x", "<t>"}}})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	own := z.prefilter(false).m
	sets, starts := [][]string{own.lits, own.lits}, [][]bool{nil, own.starts}
	alphabet := "abcnAB-_:=\" \\x\xc3\xa9\xff\x00"
	for i := range 600 {
		var set []string
		var st []bool
		for n := r.IntN(40); len(set) < n; {
			b := make([]byte, r.IntN(7))
			for i := range b {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
			set = append(set, string(b))
			st = append(st, i%2 == 1 && r.IntN(3) == 0)
		}
		sets, starts = append(sets, set), append(starts, st)
	}
	words := []string{"sk-", "key=", "TOKEN: ", `"env"`, "://", "/tmp/x", "abc ", "PRIVATE KEY", "eyJ", "  ", "Bearer ", "xyz", "fake-access-token-0123456789", "aB", "\xc3\xa9", "-_", "x", "\xff", "\xffa", `\n`, `\\`, "OD", "method", "00"}
	for si, set := range sets {
		m, x := newMatcher(set, starts[si]), newLitIndex(set, starts[si])
		for range 40 {
			text := randomText(r, 600, set, words)
			a1, h1 := m.scanFrom(text, m.start, 0, len(text), []hit{{-1, -1}})
			a2, h2 := x.scan(text, []hit{{-1, -1}})
			if a1 != a2 || !slices.Equal(h1, h2) {
				t.Fatalf("set %d %q, text %q: the index found %v, the automaton %v", si, set, text, h2, h1)
			}
		}
	}
}

// TestLazyMatcherBuildsWhenNeeded: a run that sanitizes a command line and a few
// short texts builds no table; once it has scanned smallBudget bytes it builds it,
// and finds the same either way.
func TestLazyMatcherBuildsWhenNeeded(t *testing.T) {
	z, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	z.Strings([]string{"codex", "app-server", "-c", "model=gpt-5"})
	z.Text("codexrec: mode replay: replay fixtures/hermetic/0.171.0/plain.jsonl")
	secret := "token sk-proj-" + string(bytes.Repeat([]byte("aB3"), 16))
	small := z.Text(secret)
	l := z.prefilter(false).m
	if l.table.Load() != nil {
		t.Fatal("the table was built for a command line and two short texts")
	}
	z.Text(string(bytes.Repeat([]byte("clean text "), smallBudget/10)))
	if l.table.Load() == nil {
		t.Fatalf("no table after %d bytes scanned", l.spent.Load())
	}
	if small == secret || z.Text(secret) != small {
		t.Fatalf("a key was sanitized as %q before the table and %q after", small, z.Text(secret))
	}
}

// TestLazyMatcherConcurrent: goroutines sanitizing at once while the run crosses
// smallBudget (some through the index, some building or reading the table) each get
// what a sanitizer that has built its table gives.
func TestLazyMatcherConcurrent(t *testing.T) {
	ref, err := New(Options{Salt: "s"})
	if err != nil {
		t.Fatal(err)
	}
	ref.prefilter(false).m.matcher()
	z, err := New(Options{Salt: "s"})
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{
		"token sk-proj-" + string(bytes.Repeat([]byte("aB3"), 16)),
		"Authorization: Bearer " + string(bytes.Repeat([]byte("x9Z"), 12)),
		string(bytes.Repeat([]byte("clean text "), 400)),
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 12 {
				s := texts[(g+i)%len(texts)]
				if got, want := z.Text(s), ref.Text(s); got != want {
					t.Errorf("%.40q: %.60q, want %.60q", s, got, want)
				}
			}
		}()
	}
	wg.Wait()
	if z.prefilter(false).m.table.Load() == nil {
		t.Fatal("no table after the budget was spent")
	}
}
