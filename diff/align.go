package diff

// maxEdits bounds the edit distance the exact alignment explores. Myers' algorithm
// keeps O(D²) state for D edits; beyond the bound the sessions have little in common
// and a greedy alignment is as useful and stays linear.
const maxEdits = 2000

// pair is one step of an alignment: indices into the old and new sequences, -1 for
// a message present on one side only.
type pair struct{ old, new int }

// align returns a longest-common-subsequence alignment of a and b (Myers' O(ND)
// algorithm after trimming the common prefix and suffix), in order, covering every
// index of both.
func align(a, b []int32) []pair {
	var out []pair
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		out = append(out, pair{pre, pre})
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	mid, ok := myers(ma, mb)
	if !ok {
		mid = greedy(ma, mb)
	}
	for _, p := range mid {
		if p.old >= 0 {
			p.old += pre
		}
		if p.new >= 0 {
			p.new += pre
		}
		out = append(out, p)
	}
	for i := 0; i < suf; i++ {
		out = append(out, pair{len(a) - suf + i, len(b) - suf + i})
	}
	return out
}

// myers computes the shortest edit script of a and b; ok is false when it would take
// more than maxEdits edits.
func myers(a, b []int32) (out []pair, ok bool) {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return edges(n, m), true
	}
	maxD := n + m
	if maxD > maxEdits {
		maxD = maxEdits
	}
	off := maxD + 1
	v := make([]int32, 2*maxD+3)
	var trace [][]int32
	for d := 0; d <= maxD; d++ {
		// Only diagonals -d..d matter at step d: keep a copy of that window.
		snap := make([]int32, 2*d+1)
		copy(snap, v[off-d:off+d+1])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int32
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1] // down: an insertion
			} else {
				x = v[off+k-1] + 1 // right: a deletion
			}
			y := x - int32(k)
			for int(x) < n && int(y) < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if int(x) >= n && int(y) >= m {
				return backtrack(trace, n, m), true
			}
		}
	}
	return nil, false
}

// backtrack walks the saved V windows back from (n, m) to (0, 0). trace[d] is V as
// it was when step d began, holding diagonals -d..d at indices 0..2d.
func backtrack(trace [][]int32, n, m int) []pair {
	var rev []pair
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		prev := trace[d]
		at := func(k int) int { return int(prev[k+d]) }
		k := x - y
		var pk int
		if k == -d || k != d && at(k-1) < at(k+1) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
			rev = append(rev, pair{x, y})
		}
		if pk == k+1 {
			rev = append(rev, pair{-1, py})
		} else {
			rev = append(rev, pair{px, -1})
		}
		x, y = px, py
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		rev = append(rev, pair{x, y})
	}
	out := make([]pair, len(rev))
	for i := range rev {
		out[i] = rev[len(rev)-1-i]
	}
	return out
}

// edges aligns when one side is empty.
func edges(n, m int) []pair {
	var out []pair
	for i := 0; i < n; i++ {
		out = append(out, pair{i, -1})
	}
	for j := 0; j < m; j++ {
		out = append(out, pair{-1, j})
	}
	return out
}

// greedy aligns very different sequences in linear time: it matches equal keys in
// order, looking a bounded distance ahead for the next match.
func greedy(a, b []int32) []pair {
	const window = 64
	var out []pair
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i] == b[j] {
			out = append(out, pair{i, j})
			i, j = i+1, j+1
			continue
		}
		// The nearer of a[i] ahead in b and b[j] ahead in a decides which side skips.
		db, da := -1, -1
		for t := 1; t < window && j+t < len(b); t++ {
			if b[j+t] == a[i] {
				db = t
				break
			}
		}
		for t := 1; t < window && i+t < len(a); t++ {
			if a[i+t] == b[j] {
				da = t
				break
			}
		}
		switch {
		case db >= 0 && (da < 0 || db <= da):
			for ; db > 0; db-- {
				out = append(out, pair{-1, j})
				j++
			}
		case da >= 0:
			for ; da > 0; da-- {
				out = append(out, pair{i, -1})
				i++
			}
		default:
			out = append(out, pair{i, -1}, pair{-1, j})
			i, j = i+1, j+1
		}
	}
	for ; i < len(a); i++ {
		out = append(out, pair{i, -1})
	}
	for ; j < len(b); j++ {
		out = append(out, pair{-1, j})
	}
	return out
}

// maxUncross bounds how many unpaired messages of one key uncross compares an
// aligned pair's messages with, so that a session of many same-key changes stays
// linear.
const maxUncross = 32

// uncross splits an aligned pair of messages that differ when each of them equals
// a message of the same key left unpaired on the other side: two notifications of
// one method that arrived in another order (an MCP server's "starting" and "ready"
// around a response) are then two moves, not a change beside an added and a removed
// message. ka and kb are the messages' keys as aligned; equal(i, j) compares old i
// with new j after normalisation.
func uncross(pairs []pair, ka, kb []int32, equal func(i, j int) bool) []pair {
	removed, added := map[int32][]int{}, map[int32][]int{}
	for _, p := range pairs {
		switch {
		case p.new < 0:
			removed[ka[p.old]] = append(removed[ka[p.old]], p.old)
		case p.old < 0:
			added[kb[p.new]] = append(added[kb[p.new]], p.new)
		}
	}
	if len(removed) == 0 || len(added) == 0 {
		return pairs
	}
	// take finds, among the first maxUncross candidates, one that match accepts,
	// and removes it from the list.
	take := func(list []int, match func(int) bool) ([]int, bool) {
		for n, c := range list[:min(len(list), maxUncross)] {
			if match(c) {
				return append(list[:n:n], list[n+1:]...), true
			}
		}
		return list, false
	}
	var out []pair
	for n, p := range pairs {
		if p.old >= 0 && p.new >= 0 && !equal(p.old, p.new) {
			k := ka[p.old]
			rs, okR := take(removed[k], func(l int) bool { return equal(l, p.new) })
			as, okA := take(added[k], func(m int) bool { return equal(p.old, m) })
			if okR && okA {
				if out == nil {
					out = append(make([]pair, 0, len(pairs)+1), pairs[:n]...)
				}
				removed[k], added[k] = rs, as
				out = append(out, pair{p.old, -1}, pair{-1, p.new})
				continue
			}
		}
		if out != nil {
			out = append(out, p)
		}
	}
	if out == nil {
		return pairs
	}
	return out
}
