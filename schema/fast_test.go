package schema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/codexrec/codexrec/internal/jsonschema"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// TestFastAgreesOnMutants: the fast check's verdict (fast.go) agrees with jsonschema
// on real messages and on mutants of them: every value replaced by values of other
// types, out-of-range and fractional numbers, members removed and added. The values
// are the ones the captured fixtures (real sessions of both binaries) send, each
// against the compiled route the validator picked for it.
func TestFastAgreesOnMutants(t *testing.T) {
	type sample struct {
		f *fnode
		s *jsonschema.Schema
		v any
	}
	var samples []sample
	perSchema := map[*route]int{}
	var verdicts [3]int
	old := fastHook
	fastHook = func(s *Set, r *route, v any, fast verdict) {
		old(s, r, v, fast)
		verdicts[fast]++
		if perSchema[r] < 2 {
			perSchema[r]++
			sch, err := s.compiledRoute(r)
			if err != nil {
				t.Fatal(err)
			}
			samples = append(samples, sample{r.fast, sch, v})
		}
	}
	defer func() { fastHook = old }()
	for _, version := range []string{"0.163.0", "0.171.0"} {
		set, err := Load(version)
		if err != nil {
			t.Fatal(err)
		}
		paths, _ := filepath.Glob(filepath.Join("..", "fixtures", "hermetic", version, "*.jsonl"))
		if len(paths) == 0 {
			t.Fatalf("no fixtures for %s", version)
		}
		for _, p := range paths {
			checkFile(t, p, set)
		}
	}
	// The fixtures are clean: the fast check must find that on its own.
	if verdicts[valid] == 0 || verdicts[invalid]+verdicts[unknown] > 0 {
		t.Errorf("fixtures: fast check verdicts valid/invalid/unknown %v, want all valid", verdicts)
	}
	if len(samples) < 20 {
		t.Fatalf("only %d samples", len(samples))
	}
	variants := []any{"x", json.Number("1"), json.Number("-1"), json.Number("1.5"), json.Number("2.0"),
		json.Number("4294967296"), json.Number("1e400"), true, nil, map[string]any{}, []any{}}
	checked, rejected := 0, 0
	for _, sm := range samples {
		for i, p := range positions(sm.v, nil) {
			if i >= 60 {
				break
			}
			for j := range 3 {
				x := variants[(i+j*4)%len(variants)]
				m := replaceAt(sm.v, p, x, j == 2)
				fast := fastValidate(sm.f, m)
				if err := agrees(sm.s, m, fast); err != nil {
					t.Fatalf("at %v: %v", p, err)
				}
				checked++
				if fast == invalid {
					rejected++
				}
			}
		}
	}
	// The mutants must exercise the "invalid" answer, not only "valid" and "unknown".
	if rejected < checked/10 {
		t.Errorf("fast check rejected only %d of %d mutants", rejected, checked)
	}
	t.Logf("%d samples, %d mutants, %d rejected by the fast check", len(samples), checked, rejected)
}

func checkFile(t *testing.T, path string, set *Set) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := recorder.NewReader(f, path)
	if err != nil {
		t.Fatal(err)
	}
	v := NewValidator(set)
	for e, err := range rd.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		switch e.Type {
		case recorder.TypeSegment:
			v = NewValidator(set)
		case recorder.TypeFrame:
			v.Check(&wire.Frame{Seq: e.Seq, Dir: e.Dir, Line: e.Line})
		}
	}
}

// positions lists the paths to every value inside v (not v itself), in a stable order.
func positions(v any, prefix []any) [][]any {
	var out [][]any
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := append(append([]any(nil), prefix...), k)
			out = append(out, p)
			out = append(out, positions(t[k], p)...)
		}
	case []any:
		for i, e := range t {
			p := append(append([]any(nil), prefix...), i)
			out = append(out, p)
			out = append(out, positions(e, p)...)
		}
	}
	return out
}

// replaceAt copies v with the value at p replaced by x, or removed when remove is set
// and p ends in an object member; adding "zz" to objects on the way.
func replaceAt(v any, p []any, x any, remove bool) any {
	if len(p) == 0 {
		return x
	}
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t)+1)
		for k, e := range t {
			out[k] = e
		}
		k := p[0].(string)
		if len(p) == 1 && remove {
			delete(out, k)
			out["zz"] = x
			return out
		}
		out[k] = replaceAt(t[k], p[1:], x, remove)
		return out
	case []any:
		out := append([]any(nil), t...)
		i := p[0].(int)
		out[i] = replaceAt(t[i], p[1:], x, remove)
		return out
	}
	return v
}
