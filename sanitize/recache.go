package sanitize

import (
	"regexp"
	"sync"
)

// A delta is searched in a window that repeats the stream's tail (stream.go), so a
// token near the end of one delta is read again with each of the next few: the same
// expression runs on the same window bytes several times in a row. reCache keeps the
// latest runs' results, keyed by expression and exact input, so a repeat costs a map
// lookup. An expression's result depends on its input alone, so a cached result is
// the one the run would give; the cache is small and emptied when full, so it holds
// only what was read moments ago.
type reCache struct {
	mu sync.Mutex
	n  int
	m  map[*regexp.Regexp]map[string][][]int
}

// reCacheMax bounds the entries, reCacheKey the input a run is cached for (a
// gitleaks window around a keyword reaches to the end of its token: see
// gitleaksSpans), so the cache never holds more than a few megabytes.
const reCacheMax, reCacheKey = 128, 16 << 10

// findAll is re.FindAllSubmatchIndex(w, -1), through the cache. The result is
// shared: callers must not modify it.
func (c *reCache) findAll(re *regexp.Regexp, w []byte) [][]int {
	return c.run(re, w, false)
}

// findFirst is re.FindSubmatchIndex(w) as a list of at most one match.
func (c *reCache) findFirst(re *regexp.Regexp, w []byte) [][]int {
	return c.run(re, w, true)
}

func (c *reCache) run(re *regexp.Regexp, w []byte, first bool) [][]int {
	if len(w) > reCacheKey {
		return exec(re, w, first)
	}
	c.mu.Lock()
	ms, ok := c.m[re][string(w)]
	c.mu.Unlock()
	if ok {
		return ms
	}
	ms = exec(re, w, first)
	c.mu.Lock()
	if c.m == nil || c.n >= reCacheMax {
		c.m, c.n = map[*regexp.Regexp]map[string][][]int{}, 0
	}
	byIn := c.m[re]
	if byIn == nil {
		byIn = map[string][][]int{}
		c.m[re] = byIn
	}
	if _, ok := byIn[string(w)]; !ok {
		byIn[string(w)] = ms
		c.n++
	}
	c.mu.Unlock()
	return ms
}

func exec(re *regexp.Regexp, w []byte, first bool) [][]int {
	if first {
		if m := re.FindSubmatchIndex(w); m != nil {
			return [][]int{m}
		}
		return nil
	}
	return re.FindAllSubmatchIndex(w, -1)
}
