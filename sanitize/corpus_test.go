package sanitize_test

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/sanitize/internal/corpus"
)

// corpusRecording sanitizes the corpus's lines as record does with `cat` as the
// server (each line crosses twice, c2s then s2c) and returns a recording-like file
// of frame lines.
func corpusRecording(t testing.TB, z *sanitize.Sanitizer, cases []corpus.Case) []byte {
	t.Helper()
	var file bytes.Buffer
	seq := 0
	for _, c := range cases {
		for _, l := range c.Lines {
			for _, dir := range []string{"c2s", "s2c"} {
				seq++
				out := []byte(l)
				if z != nil {
					out, _ = z.Frame([]byte(l + "\n"))
					out = bytes.TrimSuffix(out, []byte("\n"))
				}
				fmt.Fprintf(&file, `{"type":"frame","seq":%d,"dir":%q,"msg":%s}`+"\n", seq, dir, out)
			}
		}
	}
	return file.Bytes()
}

// TestCorpus runs every provider's synthetic secret in every placement, and the near
// misses, through the sanitizer: every secret is removed from every placement
// (recall 100%, a surviving third counts), no near miss is touched, and the guard
// finds something in every unsanitized case's frames. The end-to-end version through
// the built binary is TestCorpusRecord in cmd/codexrec.
func TestCorpus(t *testing.T) {
	cases := corpus.Cases()
	negs := corpus.NegativeCases()
	z, err := sanitize.New(sanitize.Options{Salt: "corpus"})
	if err != nil {
		t.Fatal(err)
	}
	verdicts := corpus.Judge(corpusRecording(t, z, append(cases, negs...)), append(cases, negs...))
	report := CorpusReport(verdicts)
	t.Log(report.Table())
	for _, v := range verdicts {
		switch {
		case v.Leak != "":
			t.Errorf("%s/%s: leaked %s", v.Case.Provider, v.Case.Placement, v.Leak)
		case v.FalsePositive:
			t.Errorf("near miss %s was changed", v.Case.Provider)
		}
	}
	if n := len(report.providers); n < 60 {
		t.Errorf("corpus has %d providers, want at least 60", n)
	}
	if len(negs) < 60 {
		t.Errorf("corpus has %d near misses, want at least 60", len(negs))
	}

	// The guard alone, on the same frames unsanitized: every case is flagged.
	for _, c := range cases {
		leaks, err := z.Scan(bytes.NewReader(corpusRecording(t, nil, []corpus.Case{c})))
		if err != nil {
			t.Fatal(err)
		}
		if len(leaks) == 0 {
			t.Errorf("guard: %s/%s unsanitized passes", c.Provider, c.Placement)
		}
	}
}

// CorpusReport tallies verdicts by provider.
type corpusReport struct {
	providers map[string]*tally
	negatives, falsePositives int
	cases, leaks              int
}

type tally struct {
	cases  int
	leaked []string
}

func CorpusReport(vs []corpus.Verdict) corpusReport {
	r := corpusReport{providers: map[string]*tally{}}
	for _, v := range vs {
		if v.Case.Negative != nil {
			r.negatives++
			if v.FalsePositive {
				r.falsePositives++
			}
			continue
		}
		tl := r.providers[v.Case.Provider]
		if tl == nil {
			tl = &tally{}
			r.providers[v.Case.Provider] = tl
		}
		tl.cases++
		r.cases++
		if v.Leak != "" {
			tl.leaked = append(tl.leaked, v.Case.Placement)
			r.leaks++
		}
	}
	return r
}

func (r corpusReport) Table() string {
	var b strings.Builder
	names := make([]string, 0, len(r.providers))
	for n := range r.providers {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(&b, "\n%-26s %5s %6s  %s\n", "provider", "cases", "recall", "leaked in")
	for _, n := range names {
		tl := r.providers[n]
		fmt.Fprintf(&b, "%-26s %5d %5.0f%%  %s\n", n, tl.cases, 100*float64(tl.cases-len(tl.leaked))/float64(tl.cases), strings.Join(tl.leaked, " "))
	}
	fmt.Fprintf(&b, "total: %d providers, %d cases, recall %.1f%%; %d near misses, %d false positives\n",
		len(r.providers), r.cases, 100*float64(r.cases-r.leaks)/float64(max(r.cases, 1)), r.negatives, r.falsePositives)
	return b.String()
}
