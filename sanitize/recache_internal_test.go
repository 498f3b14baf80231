package sanitize

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"sync"
	"testing"
)

// TestReCache: a cached run gives what the expression gives on the same input,
// first run or repeat, across evictions and from concurrent callers, and the cache
// never holds more than reCacheMax entries.
func TestReCache(t *testing.T) {
	res := []*regexp.Regexp{
		regexp.MustCompile(`ghp_[A-Za-z0-9]{4,}`),
		regexp.MustCompile(`(?i)key=([a-z0-9]+)`),
		regexp.MustCompile(`^(?:x+)`),
	}
	// Few parts, so that inputs repeat, under both kinds of run.
	parts := []string{"ghp_abc9", "KEY=", "x", " "}
	var c reCache
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range 3000 {
				var in []byte
				for n := r.IntN(8); n > 0; n-- {
					in = append(in, parts[r.IntN(len(parts))]...)
				}
				re := res[r.IntN(len(res))]
				first := r.IntN(2) == 0
				var got, want [][]int
				if first {
					got = c.findFirst(re, in)
					if m := re.FindSubmatchIndex(in); m != nil {
						want = [][]int{m}
					}
				} else {
					got, want = c.findAll(re, in), re.FindAllSubmatchIndex(in, -1)
				}
				if !slices.EqualFunc(got, want, slices.Equal) {
					t.Errorf("%s on %q (first %v): got %v, want %v", re, in, first, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	if c.n > reCacheMax {
		t.Errorf("%d entries, more than %d", c.n, reCacheMax)
	}
}

// TestVerdicts: a verdict is decided once per key while the key is cached, and the
// cache never holds more than verdictMax entries.
func TestVerdicts(t *testing.T) {
	var c verdicts
	calls := 0
	for i := range 3 * verdictMax {
		key := appendPart([]byte{'s'}, []byte{byte(i), byte(i >> 8)})
		for range 2 {
			v := c.get(key, func() verdict { calls++; return verdict{keep: i%2 == 0, repl: "r"} })
			if v.keep != (i%2 == 0) {
				t.Fatalf("key %d: keep %v", i, v.keep)
			}
		}
		if len(c.m) > verdictMax {
			t.Fatalf("%d entries, more than %d", len(c.m), verdictMax)
		}
	}
	if calls != 3*verdictMax {
		t.Errorf("decided %d times for %d keys asked twice each", calls, 3*verdictMax)
	}
}
