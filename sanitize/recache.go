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
	m  map[reRun]map[string][][]int
}

// reRun is an expression and whether its first match only was asked for.
type reRun struct {
	re    *regexp.Regexp
	first bool
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
		return runRegexp(re, w, first)
	}
	k := reRun{re, first}
	c.mu.Lock()
	ms, ok := c.m[k][string(w)]
	c.mu.Unlock()
	if ok {
		return ms
	}
	ms = runRegexp(re, w, first)
	c.mu.Lock()
	if c.m == nil || c.n >= reCacheMax {
		c.m, c.n = map[reRun]map[string][][]int{}, 0
	}
	byIn := c.m[k]
	if byIn == nil {
		byIn = map[string][][]int{}
		c.m[k] = byIn
	}
	if _, ok := byIn[string(w)]; !ok {
		byIn[string(w)] = ms
		c.n++
	}
	c.mu.Unlock()
	return ms
}

func runRegexp(re *regexp.Regexp, w []byte, first bool) [][]int {
	if first {
		if m := re.FindSubmatchIndex(w); m != nil {
			return [][]int{m}
		}
		return nil
	}
	return re.FindAllSubmatchIndex(w, -1)
}

// verdicts keeps what the checks after an expression decided for the latest values
// it matched (placeholder, allowlists, entropy: each a function of the value and
// the bytes around it that the key holds), and the placeholder of each kept one.
// The same window that repeats an expression run repeats them.
type verdicts struct {
	mu sync.Mutex
	m  map[string]verdict
}

type verdict struct {
	keep bool
	repl string
}

// verdictMax bounds the entries, verdictKey the key of an entry.
const verdictMax, verdictKey = 256, 4 << 10

// Keys start with what decided: 's' a shape rule, 'g' a gitleaks rule.

// get returns the verdict for key, computing and remembering it when unknown.
func (c *verdicts) get(key []byte, decide func() verdict) verdict {
	if len(key) > verdictKey {
		return decide()
	}
	c.mu.Lock()
	v, ok := c.m[string(key)]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = decide()
	c.mu.Lock()
	if c.m == nil || len(c.m) >= verdictMax {
		c.m = map[string]verdict{}
	}
	c.m[string(key)] = v
	c.mu.Unlock()
	return v
}

// appendPart appends a length-prefixed part to a verdict key.
func appendPart(key []byte, part []byte) []byte {
	n := len(part)
	key = append(key, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	return append(key, part...)
}
