package sanitize

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// escSignSanitizers are sanitizers whose automaton answers from the index of
// literals (a fresh run) and from the table (built first), with and without a known
// secret: the two paths of lazyMatcher and two pattern tables.
func escSignSanitizers(t testing.TB) []*Sanitizer {
	var zs []*Sanitizer
	for _, opts := range []Options{{Salt: "esc"}, {Salt: "esc", Secrets: []Secret{{Name: "T", Value: `tok\u0065n-12345678`}}}} {
		for _, table := range []bool{false, true} {
			z, err := New(opts)
			if err != nil {
				t.Fatal(err)
			}
			if table {
				z.prefilter(false).m.matcher()
			}
			zs = append(zs, z)
		}
	}
	return zs
}

// checkEscapeSigns compares what the filter of b answers from the escape signs
// with the passes it replaces, over b and over sub-ranges of it (the raw content of
// a string of the line).
func checkEscapeSigns(t *testing.T, z *Sanitizer, b []byte, ranges [][2]int) {
	t.Helper()
	for _, guard := range []bool{false, true} {
		f := z.filterFor(b, guard)
		if got, want := f.holdsDelta(), bytes.Contains(b, []byte(`"delta`)); got != want {
			t.Fatalf("holdsDelta(%q) = %v, bytes.Contains %v", b, got, want)
		}
		for _, r := range append(ranges, [2]int{0, len(b)}) {
			lo, hi := r[0], r[1]
			raw := b[lo:hi]
			if got, want := f.hiddenIn(b, lo, hi), hiddenEscapes(raw); got != want {
				t.Fatalf("hiddenIn(%q) = %v, hiddenEscapes %v", raw, got, want)
			}
			if got, want := f.percentIn(b, lo, hi), hasPercentEscape(raw); got != want {
				t.Fatalf("percentIn(%q) = %v, hasPercentEscape %v", raw, got, want)
			}
			n, tab := f.escapesIn(b, lo, hi)
			if wn, wtab := escapesAndTabSeps(raw); n != wn || tab != wtab {
				t.Fatalf("escapesIn(%q) = %d, %v; escapesAndTabSeps %d, %v", raw, n, tab, wn, wtab)
			}
			// The filter narrowed to the range answers the same.
			w := f.within(lo, hi)
			if w.hiddenIn(b, lo, hi) != f.hiddenIn(b, lo, hi) || w.percentIn(b, lo, hi) != f.percentIn(b, lo, hi) {
				t.Fatalf("within(%d, %d) answers otherwise for %q", lo, hi, raw)
			}
		}
	}
}

// escAlphabet is what the random texts are made of: the bytes of the escape signs
// in both cases, quotes, and letters that start the prefilter's other literals.
var escAlphabet = []string{`\`, `\`, `\`, `u`, `U`, `/`, `t`, `T`, `:`, `=`, `%`, `%`, `2`, `0`, `f`, `F`, `a`, `g`, `"`, ` `, `n`, `-`, `x`, `sk-`, `00`, `9`, `\\`, `\u00`, `%2F`, `%41`, `"delta`, `"DELTA`, `"delt`, `delta`}

func randomEscText(r *rand.Rand, n int) []byte {
	var b bytes.Buffer
	for b.Len() < n {
		if r.IntN(4) == 0 {
			b.WriteString("ok  github.com/example/pkg 0.0% of statements ")
			continue
		}
		b.WriteString(escAlphabet[r.IntN(len(escAlphabet))])
	}
	return b.Bytes()
}

func randomRanges(r *rand.Rand, n int) [][2]int {
	var rs [][2]int
	for range 8 {
		lo := r.IntN(n + 1)
		hi := lo + r.IntN(n-lo+1)
		rs = append(rs, [2]int{lo, hi})
	}
	return rs
}

// TestEscapeSignsMatchPasses: the answers the filter gives from the automaton's
// escape signs are those of hiddenEscapes, hasPercentEscape, escapesAndTabSeps and
// bytes.Contains (of "delta),
// on random texts dense in escapes (short ones, and long ones the automaton scans
// in lanes), on huge deltas as the server sends them, and on edge cases.
func TestEscapeSignsMatchPasses(t *testing.T) {
	edge := []string{
		``, `\`, `\u`, `\\u`, `\\\u`, `\\\\u`, `\/`, `\\/`, `x\\\/`, `\U0041`, `%`, `%2`, `%2F`, `%41`, `%4`, `a%2Fb`,
		`%2F%41`, `%%2F`, `%zz%3a`, `\t:`, `\T:`, `\\t=`, `\t`, `\t=x`, `a\\b`, `\\`, `\n\n\\\n`, `\"\\\"`,
		`{"delta":"a\tb\u0041"}`, `{"k":"\\\\u0041","v":"%2f"}`,
	}
	r := rand.New(rand.NewPCG(26, 1))
	for _, z := range escSignSanitizers(t) {
		for _, e := range edge {
			b := []byte(e)
			checkEscapeSigns(t, z, b, randomRanges(r, len(b)))
		}
		for i := range 400 {
			n := 1 + r.IntN(64)
			if i%10 == 0 {
				n = 2000 + r.IntN(20000)
			}
			b := randomEscText(r, n)
			checkEscapeSigns(t, z, b, randomRanges(r, len(b)))
		}
		huge := bytes.TrimSpace(hugeDeltaLine(70 << 10))
		checkEscapeSigns(t, z, huge, [][2]int{{bytes.Index(huge, []byte(`"delta":"`)) + 9, len(huge) - 3}})
	}
}

// hugeDeltaLine is a command-output delta of about size bytes, escaped as the server
// sends it (the bulk benchmark's shape).
func hugeDeltaLine(size int) []byte {
	var line bytes.Buffer
	line.WriteString(`{"method":"item/commandExecution/outputDelta","params":{"itemId":"call_1","delta":"`)
	for i := 0; line.Len() < size; i++ {
		line.WriteString(`ok  \tgithub.com/example/project/internal/pkg0` + string(rune('0'+i%10)) + `\t0.00s\tcoverage: 42.1% of statements\n`)
	}
	line.WriteString(`"}}` + "\n")
	return line.Bytes()
}

// FuzzEscapeSigns is TestEscapeSignsMatchPasses on any text and range.
func FuzzEscapeSigns(f *testing.F) {
	for _, s := range []string{`\u0041`, `\\u`, `a%2Fb`, `\t:x`, `{"a":"\\\/"}`, `%41%2`} {
		f.Add([]byte(s), 0, len(s))
	}
	zs := escSignSanitizers(f)
	f.Fuzz(func(t *testing.T, b []byte, lo, hi int) {
		if lo < 0 || hi < lo || hi > len(b) {
			lo, hi = 0, len(b)
		}
		for _, z := range zs {
			checkEscapeSigns(t, z, b, [][2]int{{lo, hi}})
		}
	})
}
