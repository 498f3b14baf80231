package diff

import (
	"math/rand"
	"testing"
)

// lcsLen is the textbook O(nm) LCS length, the reference align must reach.
func lcsLen(a, b []int32) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

// checkAlignment verifies that ps covers a and b in order, pairs only equal keys,
// and returns the number of pairs.
func checkAlignment(t *testing.T, a, b []int32, ps []pair) int {
	t.Helper()
	i, j, matched := 0, 0, 0
	for _, p := range ps {
		if p.old >= 0 {
			if p.old != i {
				t.Fatalf("old index %d, want %d (%v)", p.old, i, ps)
			}
			i++
		}
		if p.new >= 0 {
			if p.new != j {
				t.Fatalf("new index %d, want %d (%v)", p.new, j, ps)
			}
			j++
		}
		if p.old >= 0 && p.new >= 0 {
			if a[p.old] != b[p.new] {
				t.Fatalf("paired %d with %d", a[p.old], b[p.new])
			}
			matched++
		}
		if p.old < 0 && p.new < 0 {
			t.Fatal("empty pair")
		}
	}
	if i != len(a) || j != len(b) {
		t.Fatalf("covered %d/%d old, %d/%d new", i, len(a), j, len(b))
	}
	return matched
}

func TestAlign(t *testing.T) {
	tests := []struct{ a, b []int32 }{
		{nil, nil},
		{[]int32{1, 2, 3}, nil},
		{nil, []int32{1}},
		{[]int32{1, 2, 3}, []int32{1, 2, 3}},
		{[]int32{1, 2, 3}, []int32{1, 9, 2, 3}},
		{[]int32{1, 2, 3, 4}, []int32{2, 4}},
		{[]int32{1, 2, 3}, []int32{4, 5, 6}},
	}
	r := rand.New(rand.NewSource(1))
	for n := 0; n < 200; n++ {
		a := make([]int32, r.Intn(30))
		b := make([]int32, r.Intn(30))
		for i := range a {
			a[i] = int32(r.Intn(4))
		}
		for i := range b {
			b[i] = int32(r.Intn(4))
		}
		tests = append(tests, struct{ a, b []int32 }{a, b})
	}
	for _, tt := range tests {
		got := checkAlignment(t, tt.a, tt.b, align(tt.a, tt.b))
		if want := lcsLen(tt.a, tt.b); got != want {
			t.Errorf("align(%v, %v) matched %d, LCS is %d", tt.a, tt.b, got, want)
		}
	}
}

// Beyond maxEdits the greedy fallback still produces a valid alignment.
func TestAlignGreedy(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	a := make([]int32, 6000)
	b := make([]int32, 6000)
	for i := range a {
		a[i], b[i] = int32(r.Intn(50)), int32(r.Intn(50))
	}
	if _, ok := myers(a, b); ok {
		t.Fatal("expected myers to give up")
	}
	checkAlignment(t, a, b, align(a, b))
}
