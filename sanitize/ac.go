package sanitize

import (
	"slices"
	"strings"
)

// matcher finds which of a set of literals occur in a text, ASCII case-insensitively,
// in one pass (an Aho-Corasick automaton compiled to a table). It is the prefilter
// that lets clean text skip every other search: one table step per byte instead of
// one substring search per literal.
type matcher struct {
	class  [256]uint8
	nclass int
	// next[state*nclass+class] is the next state's row offset (state*nclass). The
	// states where patterns end are numbered last: their rows are those past
	// lastQuiet, the row of the last state where none does, so that telling them
	// costs a comparison beside the step and nothing in the step itself.
	next      []uint32
	lastQuiet uint32
	// out[state] are the pattern ids ending in state (row offset / nclass), through
	// suffix links too.
	out  [][]int32
	npat int
	// maxLen is the longest path of the trie: lanes of a parallel scan overlap by
	// maxLen-1.
	maxLen int
	// start is the row a text's scan starts in: the root's, or with word-start
	// patterns the state after a non-word byte.
	start uint32
}

func foldByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// newMatcher compiles the patterns; an empty pattern never matches. It runs each
// time a sanitizer or a guard first checks something (several times a session), so
// the trie is built straight into the flat transition table: no map per node.
//
// starts (nil: none) marks the patterns found only where a word may start, as a run
// rule's literal must (wordStart): at the text's start, after a byte that is no word
// byte, or after the letter of a JSON escape (\n, ignoring case and the backslashes
// before it). A two-byte literal such as discord's "OD" occurs in text all the time
// ("method": once per few hundred bytes of recorded turns), and each occurrence
// stops the lanes; at word starts it is rare. Such a pattern enters the trie once
// after each class of non-word bytes and after each escape, and the text's start
// is a state of its own (start) as if a non-word byte preceded it. Word bytes that
// no pattern uses then get a class of their own, apart from class 0's non-word
// bytes, so that a class is all word bytes or none.
func newMatcher(patterns []string, starts []bool) *matcher {
	m := &matcher{npat: len(patterns)}
	// Byte classes: every byte a pattern uses (folded) gets its own, the rest share 0.
	m.nclass = 1
	use := func(c byte) {
		if c = foldByte(c); m.class[c] == 0 {
			m.class[c] = uint8(m.nclass)
			m.nclass++
		}
	}
	for _, p := range patterns {
		for i := 0; i < len(p); i++ {
			use(p[i])
		}
	}
	anyStart := slices.Contains(starts, true)
	if anyStart {
		for _, c := range []byte(escapeLetters + "\\") {
			use(c)
		}
		words := uint8(0)
		for c := range 256 {
			if isWordByte(byte(c)) && m.class[foldByte(byte(c))] == 0 && foldByte(byte(c)) == byte(c) {
				if words == 0 {
					words = uint8(m.nclass)
					m.nclass++
				}
				m.class[c] = words
			}
		}
	}
	for c := 'A'; c <= 'Z'; c++ {
		m.class[c] = m.class[c+'a'-'A']
	}
	nc := m.nclass
	// The classes a word start may follow: those of non-word bytes, and 0 (the
	// text's start steps from the root by it, even when no byte is left in it).
	var after []int
	if anyStart {
		seen := [256]bool{true}
		after = append(after, 0)
		for c := range 256 {
			if k := m.class[c]; !isWordByte(byte(c)) && !seen[k] {
				seen[k] = true
				after = append(after, int(k))
			}
		}
		slices.Sort(after)
	}
	// Trie: next[s*nc+k] is the child of state s by class k, 0 for none (the root is
	// no one's child). The breadth-first pass below turns it into the full table.
	n := trieSize(patterns) + (len(after)+len(escapeLetters))*startPathBytes(patterns, starts)
	next := make([]uint32, nc, n*nc)
	outs := make([][]int, 1, n)
	// insert adds the path of classes before, then of p's bytes, ending in id.
	insert := func(before []int, p string, id int) {
		s := 0
		step := func(k int) {
			nx := next[s*nc+k]
			if nx == 0 {
				nx = uint32(len(outs))
				outs = append(outs, nil)
				next = append(next, make([]uint32, nc)...)
				next[s*nc+k] = nx
			}
			s = int(nx)
		}
		for _, k := range before {
			step(k)
		}
		for i := 0; i < len(p); i++ {
			step(int(m.class[foldByte(p[i])]))
		}
		outs[s] = append(outs[s], id)
		m.maxLen = max(m.maxLen, len(before)+len(p))
	}
	for id, p := range patterns {
		switch {
		case p == "":
		case id < len(starts) && starts[id]:
			for _, k := range after {
				insert([]int{k}, p, id)
			}
			for i := 0; i < len(escapeLetters); i++ {
				insert([]int{int(m.class['\\']), int(m.class[escapeLetters[i]])}, p, id)
			}
		default:
			insert(nil, p, id)
		}
	}
	// Breadth-first: failure links and the full transition table, in place (a state's
	// failure is shallower, so its row is complete when read).
	fail := make([]uint32, len(outs))
	queue := make([]uint32, 0, n)
	for _, nx := range next[:nc] {
		if nx != 0 {
			queue = append(queue, nx)
		}
	}
	for q := 0; q < len(queue); q++ {
		s := queue[q]
		f := fail[s]
		if len(outs[f]) > 0 {
			outs[s] = append(outs[s], outs[f]...)
		}
		row, frow := next[int(s)*nc:int(s+1)*nc], next[int(f)*nc:int(f+1)*nc]
		for k, nx := range row {
			if nx != 0 {
				fail[nx] = frow[k]
				queue = append(queue, nx)
			} else {
				row[k] = frow[k]
			}
		}
	}
	// States are renumbered, those where no pattern ends first (the root stays 0),
	// and entries become row offsets.
	ids := make([]uint32, len(outs))
	id := uint32(0)
	for _, quiet := range []bool{true, false} {
		for s, o := range outs {
			if (len(o) == 0) == quiet {
				ids[s] = id
				id++
			}
		}
		if quiet {
			m.lastQuiet = (id - 1) * uint32(nc)
		}
	}
	m.out = make([][]int32, len(outs))
	for s, o := range outs {
		for _, id := range o {
			m.out[ids[s]] = append(m.out[ids[s]], int32(id))
		}
	}
	m.next = make([]uint32, len(next))
	for s := range outs {
		row, to := next[s*nc:(s+1)*nc], m.next[int(ids[s])*nc:int(ids[s]+1)*nc]
		for k, nx := range row {
			to[k] = ids[nx] * uint32(nc)
		}
	}
	if anyStart {
		m.start = m.next[0] // the root's step by class 0: after a non-word byte no pattern uses
	}
	return m
}

// escapeLetters are the letters of the JSON escapes after which a word starts.
const escapeLetters = "nrtbf"

// startPathBytes bounds the states one path of each word-start pattern adds to the
// trie (see newMatcher: the byte or escape before it, then its own bytes).
func startPathBytes(patterns []string, starts []bool) int {
	n := 0
	for id, p := range patterns {
		if id < len(starts) && starts[id] {
			n += len(p) + 2
		}
	}
	return n
}

// trieSize is the number of states of the patterns' trie (the root included), so
// that its table is allocated once: sorted case-folded, each pattern adds a state
// per byte past the prefix it shares with the one before.
func trieSize(patterns []string) int {
	folded := make([]string, 0, len(patterns))
	for _, p := range patterns {
		folded = append(folded, asciiLower(p))
	}
	slices.Sort(folded)
	n, prev := 1, ""
	for _, p := range folded {
		common := 0
		for common < len(p) && common < len(prev) && p[common] == prev[common] {
			common++
		}
		n += len(p) - common
		prev = p
	}
	return n
}

// asciiLower is s with A-Z folded as foldByte folds them (strings.ToLower also folds
// other letters).
func asciiLower(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return r >= 'A' && r <= 'Z' })
	if i < 0 {
		return s
	}
	b := []byte(s)
	for j := i; j < len(b); j++ {
		b[j] = foldByte(b[j])
	}
	return string(b)
}

// hit is an occurrence of a pattern: its id and the offset just past it.
type hit struct{ end, id int }

// scan appends to hits every occurrence of a pattern in text, in text order, and
// reports whether there was any.
//
// Each step of the automaton waits for the previous one's table load, so a text
// longer than about a hundred bytes is cut in four lanes walked in one loop (lanes4):
// their loads overlap. Lane k (from 1) starts maxLen-1 bytes before the part it
// reports, so it sees every pattern ending there; the lanes are of one length, the
// last one's reading on to the end of the text alone.
func (m *matcher) scan(text []byte, hits []hit) (bool, []hit) {
	n, ov := len(text), m.maxLen-1
	l := (n + 3*ov) / 4 // each lane's length
	d := l - ov         // lane k begins at k*d, and reports from k*d+ov on
	if d < 16 {
		return m.scanFrom(text, m.start, 0, n, hits)
	}
	rows := [4]uint32{m.start}
	n0 := len(hits)
	nclass := uint32(m.nclass)
	for j := 0; ; j++ {
		if j = m.lanes4(text, d, l, j, &rows); j == l {
			break
		}
		// Some lane's step j reached a state where patterns end.
		for k, row := range rows {
			if row <= m.lastQuiet || k > 0 && j < ov {
				continue
			}
			for _, id := range m.out[row/nclass] {
				hits = append(hits, hit{k*d + j + 1, int(id)})
			}
		}
	}
	// The lanes' hits came in turn: in text order, those ending at one place (one
	// lane's, in the automaton's order) keep theirs.
	if found := hits[n0:]; !slices.IsSortedFunc(found, hitEndOrder) {
		slices.SortStableFunc(found, hitEndOrder)
	}
	// The last lane goes on over the bytes the lanes left.
	a, h := m.scanFrom(text, rows[3], 3*d+l, n, hits)
	return len(h) > n0 || a, h
}

func hitEndOrder(a, b hit) int { return a.end - b.end }

// lanes4 steps the four lanes (text[k*d:k*d+l], in the states rows) from step j on,
// and returns the first step after which some lane is in a state where patterns
// end, or l; rows holds the states after that step. It is the loop of the
// prefilter: kept apart from the handling of hits, it keeps everything in
// registers.
func (m *matcher) lanes4(text []byte, d, l, j int, rows *[4]uint32) int {
	next, class, lq := m.next, &m.class, m.lastQuiet
	t0, t1, t2, t3 := text[:l], text[d:d+l], text[2*d:2*d+l], text[3*d:3*d+l]
	r0, r1, r2, r3 := rows[0], rows[1], rows[2], rows[3]
	for ; j < l; j++ {
		r0 = next[r0+uint32(class[t0[j]])]
		r1 = next[r1+uint32(class[t1[j]])]
		r2 = next[r2+uint32(class[t2[j]])]
		r3 = next[r3+uint32(class[t3[j]])]
		// lq-r wraps past 1<<31 exactly when r > lq (rows stay below 1<<31).
		if ((lq-r0)|(lq-r1)|(lq-r2)|(lq-r3))>>31 != 0 {
			break
		}
	}
	rows[0], rows[1], rows[2], rows[3] = r0, r1, r2, r3
	return j
}

// scanFrom scans text[from:to] from the state at row.
func (m *matcher) scanFrom(text []byte, row uint32, from, to int, hits []hit) (bool, []hit) {
	any := false
	next, class := m.next, &m.class
	nclass := uint32(m.nclass)
	for i := from; i < to; i++ {
		row = next[row+uint32(class[text[i]])]
		if row > m.lastQuiet {
			for _, id := range m.out[row/nclass] {
				hits = append(hits, hit{i + 1, int(id)})
			}
			any = true
		}
	}
	return any, hits
}
