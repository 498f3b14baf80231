package sanitize

import (
	"bytes"
	"sync"
)

// The guard following a recording checks each line twice, on two goroutines: its
// sanitizer's pass (GuardFeed) and its scan (ScanFinds). Both begin with the same
// automaton over the same bytes, so for a long line the feed leaves the automaton's
// hits behind and the scan takes them instead of reading the line again. An entry
// holds a copy of its line, compared whole before its hits are used: the hits are
// those the automaton gives for those exact bytes.

// lineHits holds the hits of the lines a feed checked, until its scan takes them.
type lineHits struct {
	mu      sync.Mutex
	entries []hitsEntry
	bytes   int
}

type hitsEntry struct {
	line []byte
	any  bool
	hits []hit
}

const (
	// minSharedLine is the shortest line whose hits are left for the scan: below
	// it, the copy and the hand-over cost about what the automaton does.
	minSharedLine = 16 << 10
	// maxSharedLine is the longest: a longer line is not copied.
	maxSharedLine = 1 << 20
	// maxSharedBytes bounds the lines held: past it the oldest go (a scan far
	// behind reads its lines itself).
	maxSharedBytes = 4 << 20
)

// sharedHits is the store of z's automaton (a guard's sanitizer shares its
// source's).
func (z *Sanitizer) sharedHits() *lineHits {
	if z.preFrom != nil {
		return &z.preFrom.hits
	}
	return &z.hits
}

func (c *lineHits) put(line []byte, any bool, hits []hit) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = append(c.entries, hitsEntry{bytes.Clone(line), any, append([]hit(nil), hits...)})
	c.bytes += len(line)
	for c.bytes > maxSharedBytes {
		c.bytes -= len(c.entries[0].line)
		c.entries[0] = hitsEntry{}
		c.entries = c.entries[1:]
	}
}

// take returns the hits left for line, dropping every entry before it (the scan
// goes in file order: those lines are past).
func (c *lineHits) take(line []byte) (any bool, hits []hit, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if len(e.line) == len(line) && bytes.Equal(e.line, line) {
			for k := range c.entries[:i+1] {
				c.bytes -= len(c.entries[k].line)
				c.entries[k] = hitsEntry{}
			}
			c.entries = c.entries[i+1:]
			if len(c.entries) == 0 {
				c.entries = nil
			}
			return e.any, e.hits, true
		}
	}
	return false, nil, false
}

// scanLineHits is the automaton over a line (b), its hits left for the scan
// (leave) or taken from the feed (take) when the line is long enough.
func (z *Sanitizer) scanLineHits(m *lazyMatcher, b []byte, buf []hit, leave, take bool) (bool, []hit) {
	shared := len(b) >= minSharedLine && len(b) <= maxSharedLine
	if shared && take {
		if any, hits, ok := z.sharedHits().take(b); ok {
			return any, hits
		}
	}
	any, hits := m.scan(b, buf)
	if shared && leave {
		z.sharedHits().put(b, any, hits)
	}
	return any, hits
}
