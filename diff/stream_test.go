package diff_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/internal/testing/hostile"
)

// CompareFiles gives, byte for byte, the report Compare gives for the sessions
// loaded whole: on every hand-made pair (both ways round), on every pair of the
// captured fixtures, and on hostile shapes against slightly different copies.
func TestCompareFilesSameReport(t *testing.T) {
	type pair struct{ old, new string }
	var pairs []pair
	for _, dir := range []string{"same", "fields", "enums", "messages", "json-in-string", "moved"} {
		d := filepath.Join("testdata", "pairs", dir)
		pairs = append(pairs, pair{filepath.Join(d, "old.jsonl"), filepath.Join(d, "new.jsonl")},
			pair{filepath.Join(d, "new.jsonl"), filepath.Join(d, "old.jsonl")})
	}
	fixtures, err := filepath.Glob(filepath.Join("..", "fixtures", "hermetic", "*", "*.jsonl"))
	if err != nil || len(fixtures) < 4 {
		t.Fatalf("fixtures: %v %v", fixtures, err)
	}
	for _, a := range fixtures {
		for _, b := range fixtures {
			pairs = append(pairs, pair{a, b})
		}
	}
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	deltas := write("deltas.jsonl", hostile.DeltasRecording(3000, 10))
	deltas2 := write("deltas2.jsonl", hostile.DeltasRecording(2990, 11))
	frames := write("frames.jsonl", hostile.FramesRecording(3000))
	frames2 := write("frames2.jsonl", bytes.ReplaceAll(hostile.FramesRecording(3010), []byte(`"total":`), []byte(`"totals":`)))
	line := write("line.jsonl", hostile.HugeLineRecording(1<<20))
	line2 := write("line2.jsonl", hostile.HugeLineRecording(1<<20-1))
	deep := write("deep.jsonl", hostile.DeepRecording(1000, "1"))
	deep2 := write("deep2.jsonl", hostile.DeepRecording(1000, "2"))
	pairs = append(pairs, pair{deltas, deltas2}, pair{deltas2, deltas}, pair{frames, frames2}, pair{frames2, frames},
		pair{line, line2}, pair{deep, deep2}, pair{frames, deltas}, pair{deltas, line})
	for _, p := range pairs {
		for _, opts := range []diff.Options{{}, {Ignore: []string{"/**/delta"}}} {
			old, nw, err := diff.LoadFiles(p.old, p.new, opts)
			if err != nil {
				t.Fatal(err)
			}
			want := diff.Compare(old, nw)
			got, op, np, err := diff.CompareFiles(p.old, p.new, opts)
			if err != nil {
				t.Fatalf("%s %s: %v", p.old, p.new, err)
			}
			var wj, gj, wt, gt bytes.Buffer
			want.WriteJSON(&wj)
			got.WriteJSON(&gj)
			want.WriteText(&wt, false)
			got.WriteText(&gt, false)
			if !bytes.Equal(wj.Bytes(), gj.Bytes()) || !bytes.Equal(wt.Bytes(), gt.Bytes()) {
				t.Errorf("%s %s %v: CompareFiles differs from Compare:\n--- got ---\n%s\n--- want ---\n%s", p.old, p.new, opts, gt.Bytes(), wt.Bytes())
			}
			if !reflect.DeepEqual(op, old.Problems) || !reflect.DeepEqual(np, nw.Problems) {
				t.Errorf("%s %s: problems %v %v, want %v %v", p.old, p.new, op, np, old.Problems, nw.Problems)
			}
		}
	}
}
