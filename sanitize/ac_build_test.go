package sanitize

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestMatcherBuild: the matcher built straight into its table is the one a trie of
// nodes with child maps gives (referenceMatcher, the textbook construction), on the
// sanitizer's and the guard's own literals and on random sets with shared prefixes,
// repeats, empty patterns and every case.
func TestMatcherBuild(t *testing.T) {
	sets := [][]string{ruleLiterals()}
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := "abcAB-_:=\" \\x"
	for range 200 {
		var set []string
		for n := r.IntN(40); len(set) < n; {
			b := make([]byte, r.IntN(7))
			for i := range b {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
			set = append(set, string(b))
		}
		sets = append(sets, set)
	}
	for _, set := range sets {
		got, want := newMatcher(set, nil), referenceMatcher(set)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("patterns %q: the table differs from the reference construction", set)
		}
	}
}

// referenceMatcher is newMatcher as a trie of nodes with child maps, then failure
// links and the table breadth-first.
func referenceMatcher(patterns []string) *matcher {
	m := &matcher{npat: len(patterns)}
	m.nclass = 1
	for _, p := range patterns {
		for i := 0; i < len(p); i++ {
			c := foldByte(p[i])
			if m.class[c] == 0 {
				m.class[c] = uint8(m.nclass)
				m.nclass++
			}
		}
	}
	for c := 'A'; c <= 'Z'; c++ {
		m.class[c] = m.class[c+'a'-'A']
	}
	type node struct {
		child map[uint8]int
		fail  int
		out   []int
	}
	nodes := []node{{child: map[uint8]int{}}}
	for _, p := range patterns {
		m.maxLen = max(m.maxLen, len(p))
	}
	for id, p := range patterns {
		if p == "" {
			continue
		}
		s := 0
		for i := 0; i < len(p); i++ {
			k := m.class[foldByte(p[i])]
			nx, ok := nodes[s].child[k]
			if !ok {
				nx = len(nodes)
				nodes = append(nodes, node{child: map[uint8]int{}})
				nodes[s].child[k] = nx
			}
			s = nx
		}
		nodes[s].out = append(nodes[s].out, id)
	}
	next := make([]int, len(nodes)*m.nclass)
	queue := []int{}
	for k := 0; k < m.nclass; k++ {
		if nx, ok := nodes[0].child[uint8(k)]; ok {
			next[k] = nx
			queue = append(queue, nx)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		f := nodes[s].fail
		nodes[s].out = append(nodes[s].out, nodes[f].out...)
		for k := 0; k < m.nclass; k++ {
			if nx, ok := nodes[s].child[uint8(k)]; ok {
				nodes[nx].fail = next[f*m.nclass+k]
				next[s*m.nclass+k] = nx
				queue = append(queue, nx)
			} else {
				next[s*m.nclass+k] = next[f*m.nclass+k]
			}
		}
	}
	// The states where no pattern ends come first, in order, then the others.
	var order []int
	for s := range nodes {
		if len(nodes[s].out) == 0 {
			order = append(order, s)
		}
	}
	m.lastQuiet = uint32((len(order) - 1) * m.nclass)
	for s := range nodes {
		if len(nodes[s].out) > 0 {
			order = append(order, s)
		}
	}
	id := make([]int, len(nodes))
	for i, s := range order {
		id[s] = i
	}
	m.next = make([]uint32, len(next))
	m.out = make([][]int32, len(nodes))
	for s := range nodes {
		for _, o := range nodes[s].out {
			m.out[id[s]] = append(m.out[id[s]], int32(o))
		}
		for k := 0; k < m.nclass; k++ {
			m.next[id[s]*m.nclass+k] = uint32(id[next[s*m.nclass+k]] * m.nclass)
		}
	}
	return m
}

// ruleLiterals are the literals of every rule, as the prefilter has them.
func ruleLiterals() []string {
	var lits []string
	for _, r := range shapeRules {
		lits = append(append(lits, r.lits...), r.lower...)
	}
	for _, r := range gitleaksRules() {
		lits = append(lits, r.keywords...)
	}
	return append(append(lits, keywordTriggers...), keywordJSONTriggers...)
}

// BenchmarkMatcherBuild is the cost of the guard's prefilter automaton, built once
// per guard and sanitizer each session.
func BenchmarkMatcherBuild(b *testing.B) {
	lits := ruleLiterals()
	b.Run("table", func(b *testing.B) {
		for range b.N {
			newMatcher(lits, nil)
		}
	})
	b.Run("table-word-starts", func(b *testing.B) {
		z, err := New(Options{})
		if err != nil {
			b.Fatal(err)
		}
		own := z.prefilter(false).m
		b.ResetTimer()
		for range b.N {
			newMatcher(own.lits, own.starts)
		}
		b.ReportMetric(float64(len(newMatcher(own.lits, own.starts).next)*4)/1024, "table-KiB")
		b.ReportMetric(float64(len(newMatcher(own.lits, nil).next)*4)/1024, "unmarked-KiB")
	})
	b.Run("reference", func(b *testing.B) {
		for range b.N {
			referenceMatcher(lits)
		}
	})
}
