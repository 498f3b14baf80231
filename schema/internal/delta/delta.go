// Package delta encodes a text as line copies from a base text plus literal lines, and
// decodes it back. The schema store keeps most files of a release as deltas against the
// previous release's same file: generated schemas change a few lines at a time, while
// every file repeats the definitions it uses. It is not a general diff: it favours
// a simple, exact round trip over the smallest output.
package delta

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrCorrupt is wrapped by every decoding error.
var ErrCorrupt = errors.New("corrupt delta")

// minCopy is the shortest run of lines worth a copy instead of literals.
const minCopy = 3

// maxCandidates bounds the base positions tried for a line (common lines such as "}"
// occur everywhere).
const maxCandidates = 64

// Encode returns the delta that turns base into target: lines "c START COUNT" (copy
// COUNT lines of base from line START, 0-based) and "i COUNT" followed by COUNT literal
// lines. Lines keep their "\n"; a last line without one is marked by "e" after it.
func Encode(base, target []byte) []byte {
	bl, tl := split(base), split(target)
	at := map[string][]int{}
	for i, l := range bl {
		if len(at[string(l)]) < maxCandidates {
			at[string(l)] = append(at[string(l)], i)
		}
	}
	var out, lit bytes.Buffer
	nlit := 0
	flush := func() {
		if nlit > 0 {
			fmt.Fprintf(&out, "i %d\n", nlit)
			out.Write(lit.Bytes())
			lit.Reset()
			nlit = 0
		}
	}
	next := -1 // base line after the last copy
	for j := 0; j < len(tl); {
		best, bestLen := -1, 0
		try := func(i int) {
			n := 0
			for i+n < len(bl) && j+n < len(tl) && bytes.Equal(bl[i+n], tl[j+n]) {
				n++
			}
			if n > bestLen {
				best, bestLen = i, n
			}
		}
		if next >= 0 && next < len(bl) {
			try(next)
		}
		if bestLen < minCopy {
			for _, i := range at[string(tl[j])] {
				try(i)
			}
		}
		if bestLen >= minCopy {
			flush()
			fmt.Fprintf(&out, "c %d %d\n", best, bestLen)
			j += bestLen
			next = best + bestLen
			continue
		}
		lit.Write(tl[j])
		if !bytes.HasSuffix(tl[j], []byte("\n")) {
			lit.WriteString("\n")
			nlit++
			flush()
			out.WriteString("e\n")
			j++
			continue
		}
		nlit++
		j++
	}
	flush()
	return out.Bytes()
}

// Decode applies a delta made by Encode to base. A copy op appends its run of
// base's lines at once, and a literal op its lines at once: the schemas' deltas are
// mostly long copies.
func Decode(base, d []byte) ([]byte, error) {
	starts := lineStarts(base)
	lines := len(starts) - 1
	out := make([]byte, 0, len(base)+len(d)) // about the size of the result, mostly base's lines
	for len(d) > 0 {
		i := bytes.IndexByte(d, '\n')
		if i < 0 {
			return nil, fmt.Errorf("%w: unterminated op", ErrCorrupt)
		}
		op := string(d[:i])
		d = d[i+1:]
		switch {
		case op == "e":
			if len(out) == 0 || out[len(out)-1] != '\n' {
				return nil, fmt.Errorf("%w: e after no line", ErrCorrupt)
			}
			out = out[:len(out)-1]
		case len(op) > 2 && op[:2] == "c ":
			a, b, _ := strings.Cut(op[2:], " ")
			start, err1 := strconv.Atoi(a)
			n, err2 := strconv.Atoi(b)
			if err1 != nil || err2 != nil || start < 0 || n < 1 || start > lines-n {
				return nil, fmt.Errorf("%w: %q", ErrCorrupt, op)
			}
			out = append(out, base[starts[start]:starts[start+n]]...)
		case len(op) > 2 && op[:2] == "i ":
			n, err := strconv.Atoi(op[2:])
			if err != nil || n < 1 {
				return nil, fmt.Errorf("%w: %q", ErrCorrupt, op)
			}
			end := 0
			for ; n > 0; n-- {
				k := bytes.IndexByte(d[end:], '\n')
				if k < 0 {
					return nil, fmt.Errorf("%w: literal lines missing", ErrCorrupt)
				}
				end += k + 1
			}
			out = append(out, d[:end]...)
			d = d[end:]
		default:
			return nil, fmt.Errorf("%w: %q", ErrCorrupt, op)
		}
	}
	return out, nil
}

// lineStarts returns where each of b's lines starts, and len(b) last.
func lineStarts(b []byte) []int {
	starts := make([]int, 0, bytes.Count(b, []byte("\n"))+2)
	for i := 0; i < len(b); {
		starts = append(starts, i)
		k := bytes.IndexByte(b[i:], '\n')
		if k < 0 {
			break
		}
		i += k + 1
	}
	return append(starts, len(b))
}

// split cuts b into lines, each with its "\n" (the last may lack one).
func split(b []byte) [][]byte {
	starts := lineStarts(b)
	out := make([][]byte, len(starts)-1)
	for i := range out {
		out[i] = b[starts[i]:starts[i+1]]
	}
	return out
}
