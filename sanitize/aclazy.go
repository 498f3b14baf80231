package sanitize

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// lazyMatcher is a matcher whose table is built the first time a run scans more
// than smallBudget bytes in all. Until then each text is searched literal by
// literal through an index of their first bytes, which costs a small fraction
// of the table's build (about a millisecond and half a megabyte): a run that
// sanitizes only a command line and a header, or prints a note, never builds it.
// Both give the same hits in the same order.
type lazyMatcher struct {
	lits   []string
	starts []bool       // the patterns found at word starts only (newMatcher)
	spent  atomic.Int64 // bytes searched through the index
	table  atomic.Pointer[matcher]
	build  sync.Once
	index  *litIndex
	iBuild sync.Once
}

// smallBudget is how many bytes in all the index searches before the table is
// built: a command line, a header and a few short notes.
const smallBudget = 16 << 10

func newLazyMatcher(lits []string, starts []bool) *lazyMatcher {
	return &lazyMatcher{lits: lits, starts: starts}
}

// matcher returns the table, building it if no scan has.
func (l *lazyMatcher) matcher() *matcher {
	l.build.Do(func() { l.table.Store(newMatcher(l.lits, l.starts)) })
	return l.table.Load()
}

// scan is matcher.scan.
func (l *lazyMatcher) scan(text []byte, hits []hit) (bool, []hit) {
	if m := l.table.Load(); m != nil {
		return m.scan(text, hits)
	}
	if len(text) <= smallBudget && l.spent.Add(int64(len(text))) <= smallBudget {
		l.iBuild.Do(func() { l.index = newLitIndex(l.lits, l.starts) })
		return l.index.scan(text, hits)
	}
	return l.matcher().scan(text, hits)
}

// litIndex finds the literals of a matcher one by one: their ids grouped by first
// byte (folded), in id order within a group.
type litIndex struct {
	folded []string
	starts []bool
	ids    []int32
	from   [257]int32 // the ids of the literals starting with byte c are ids[from[c]:from[c+1]]
}

func newLitIndex(lits []string, starts []bool) *litIndex {
	x := &litIndex{folded: make([]string, len(lits)), starts: starts}
	n := 0
	for id, p := range lits {
		p = asciiLower(p)
		x.folded[id] = p
		if p != "" { // an empty literal never matches
			x.from[int(p[0])+1]++
			n++
		}
	}
	for c := 1; c < len(x.from); c++ {
		x.from[c] += x.from[c-1]
	}
	x.ids = make([]int32, n)
	next := x.from
	for id, p := range x.folded {
		if p != "" {
			x.ids[next[p[0]]] = int32(id)
			next[p[0]]++
		}
	}
	return x
}

// scan appends the hits of text as matcher.scan orders them: by the offset just
// past them, then longest first (the automaton's state, then its suffix links;
// a word-start pattern's path holds the byte or escape before it), then by id.
func (x *litIndex) scan(text []byte, hits []hit) (bool, []hit) {
	n0 := len(hits)
	for i := range text {
		c := int(foldByte(text[i]))
		for _, id := range x.ids[x.from[c]:x.from[c+1]] {
			if p := x.folded[id]; foldedPrefix(text[i+1:], p[1:]) && x.before(text, i, int(id)) >= 0 {
				hits = append(hits, hit{i + len(p), int(id)})
			}
		}
	}
	found := hits[n0:]
	slices.SortFunc(found, func(a, b hit) int {
		if a.end != b.end {
			return a.end - b.end
		}
		la := len(x.folded[a.id]) + x.before(text, a.end-len(x.folded[a.id]), a.id)
		lb := len(x.folded[b.id]) + x.before(text, b.end-len(x.folded[b.id]), b.id)
		if la != lb {
			return lb - la
		}
		return a.id - b.id
	})
	return len(found) > 0, hits
}

// before is how many bytes before text[i] the automaton's path of pattern id
// holds (newMatcher): 0 for a pattern found anywhere; for a word-start one 1 at
// the text's start or after a non-word byte, 2 after an escape's letter, and -1
// where no word starts.
func (x *litIndex) before(text []byte, i, id int) int {
	switch {
	case id >= len(x.starts) || !x.starts[id]:
		return 0
	case i == 0 || !isWordByte(text[i-1]):
		return 1
	case i >= 2 && text[i-2] == '\\' && strings.IndexByte(escapeLetters, foldByte(text[i-1])) >= 0:
		return 2
	}
	return -1
}

// foldedPrefix reports whether b starts with p (folded) ignoring ASCII case.
func foldedPrefix(b []byte, p string) bool {
	if len(b) < len(p) {
		return false
	}
	for j := 0; j < len(p); j++ {
		if foldByte(b[j]) != p[j] {
			return false
		}
	}
	return true
}
