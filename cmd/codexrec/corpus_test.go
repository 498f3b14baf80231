package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	corpus "github.com/codexrec/codexrec/internal/testing/secretcorpus"
)

// TestCorpusRecord sends the secret corpus (every provider's synthetic secret in
// every placement, split ones included, and the near misses) as a server's output
// through `record -- cat FILE`:
// with the defaults every secret is gone from the recording (a surviving third of one
// counts as a leak) and no near miss is touched, exit 0. With --no-sanitize the guard
// redacts them all in place: exit 3, the recording published clean, no near miss
// touched. The client gets every byte either way. (The server sends it, as a
// server sends deltas: an echo of the client's lines, `record -- cat`, would put two
// copies of each stream in one recording, whose deltas interleave as the tap saw them
// and are joined per item, not per direction: a documented limit.)
func TestCorpusRecord(t *testing.T) {
	cases := append(corpus.Cases(), corpus.NegativeCases()...)
	var in strings.Builder
	for _, c := range cases {
		for _, l := range c.Lines {
			in.WriteString(l)
			in.WriteByte('\n')
		}
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "corpus.jsonl")
	if err := os.WriteFile(file, []byte(in.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []struct {
		name string
		args []string
		code int
	}{
		{"sanitized", nil, 0},
		{"guard-alone", []string{"--no-sanitize"}, 3},
	} {
		out := filepath.Join(dir, mode.name+".jsonl")
		args := append(append([]string{"record"}, mode.args...), "-o", out, "--", "cat", file)
		r := runCodexrec(t, dir, strings.NewReader(""), args...)
		if r.code != mode.code {
			t.Fatalf("%s: exit %d, want %d; stderr:\n%.2000s", mode.name, r.code, mode.code, r.stderr)
		}
		if string(r.stdout) != in.String() {
			t.Errorf("%s: the client did not get the exact bytes back", mode.name)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("%s: not published: %v", mode.name, err)
		}
		verdicts := corpus.JudgeDirs(data, cases, 1)
		leaks, fps, total := 0, 0, 0
		byProvider := map[string][]string{}
		for _, v := range verdicts {
			switch {
			case v.Case.Negative != nil:
				if v.FalsePositive {
					fps++
					t.Errorf("%s: near miss %s was changed", mode.name, v.Case.Provider)
				}
			default:
				total++
				if v.Leak != "" {
					leaks++
					byProvider[v.Case.Provider] = append(byProvider[v.Case.Provider], v.Case.Placement)
					t.Errorf("%s: %s/%s leaked %s", mode.name, v.Case.Provider, v.Case.Placement, v.Leak)
				}
			}
		}
		var names []string
		for p := range byProvider {
			names = append(names, p)
		}
		sort.Strings(names)
		t.Logf("%s: %d secret cases, recall %.1f%%, %d false positives of %d near misses%s", mode.name, total,
			100*float64(total-leaks)/float64(total), fps, len(corpus.Negatives()), leakList(names, byProvider))
		for _, secret := range corpus.Secrets() {
			if p := corpus.Pieces(secret.Body); strings.Contains(string(r.stderr), p[0]) {
				t.Errorf("%s: stderr shows %s's secret", mode.name, secret.Provider)
			}
		}
	}
}

func leakList(names []string, by map[string][]string) string {
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "\n  %s: %s", n, strings.Join(by[n], " "))
	}
	return b.String()
}
