package sanitize_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	corpus "github.com/codexrec/codexrec/internal/testing/secretcorpus"
	"github.com/codexrec/codexrec/sanitize"
)

// corpusRecording sanitizes the corpus's lines as record does with `cat` as the
// server (each line crosses twice, c2s then s2c) and returns a recording-like file
// of frame lines.
func corpusRecording(t testing.TB, z *sanitize.Sanitizer, cases []corpus.Case) []byte {
	t.Helper()
	type frame struct{ dir, line string }
	var frames []frame
	for _, c := range cases {
		for _, dir := range []string{"c2s", "s2c"} {
			for _, l := range c.Lines {
				frames = append(frames, frame{dir, l})
			}
		}
	}
	var file bytes.Buffer
	for i, f := range frames {
		out := []byte(f.line)
		if z != nil {
			// As record's tap does: each frame sanitized knowing the next one.
			var next []byte
			if i+1 < len(frames) {
				next = []byte(frames[i+1].line)
			}
			out, _ = z.FrameFollowedBy([]byte(f.line+"\n"), true, next)
			out = bytes.TrimSuffix(out, []byte("\n"))
		}
		fmt.Fprintf(&file, `{"type":"frame","seq":%d,"dir":%q,"msg":%s}`+"\n", i+1, f.dir, out)
	}
	return file.Bytes()
}

// TestCorpus runs every provider's synthetic secret in every placement, and the near
// misses, through the sanitizer: every secret is removed from every placement
// (recall 100%, a surviving third counts), no near miss is touched, and the guard
// finds something in every unsanitized case's frames. The end-to-end version through
// the built binary is TestCorpusRecord in cmd/codexrec.
// providerSecret is the corpus secret of a provider.
func providerSecret(t testing.TB, provider string) string {
	t.Helper()
	for _, s := range corpus.Secrets() {
		if s.Provider == provider {
			return s.Value
		}
	}
	t.Fatalf("no corpus secret for %s", provider)
	return ""
}

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

	// The guard alone, on the same frames unsanitized (record --no-sanitize): it
	// redacts every secret in place, touches no near miss, and nothing is left that
	// it cannot redact.
	path := filepath.Join(t.TempDir(), "raw.jsonl")
	if err := os.WriteFile(path, corpusRecording(t, nil, append(cases, negs...)), 0o600); err != nil {
		t.Fatal(err)
	}
	redacted, err := z.GuardRedact(path)
	if err != nil {
		t.Fatalf("guard: %v", err)
	}
	data, _ := os.ReadFile(path)
	gv := corpus.Judge(data, append(cases, negs...))
	gr := CorpusReport(gv)
	t.Logf("guard alone: %d findings redacted; recall %.1f%%, %d false positives", len(redacted),
		100*float64(gr.cases-gr.leaks)/float64(gr.cases), gr.falsePositives)
	for _, v := range gv {
		switch {
		case v.Leak != "":
			t.Errorf("guard: %s/%s: leaked %s", v.Case.Provider, v.Case.Placement, v.Leak)
		case v.FalsePositive:
			t.Errorf("guard: near miss %s was changed", v.Case.Provider)
		}
	}
	for _, l := range redacted {
		if l.Seq == 0 || l.Pointer == "" || !strings.Contains(l.Preview, "chars)") {
			t.Errorf("guard finding not located or not masked: %+v", l)
			break
		}
	}
}

// CorpusReport tallies verdicts by provider.
type corpusReport struct {
	providers                 map[string]*tally
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
