package check_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/codexrec/codexrec/check"
)

func TestCheckPaths(t *testing.T) {
	dir := filepath.Join("..", "fixtures", "hermetic")
	files := check.Expand([]string{dir})
	if len(files) == 0 {
		t.Fatal("no committed recordings")
	}
	stdin, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	missing := filepath.Join(t.TempDir(), "missing.jsonl")
	var skipped []error
	results, err := (&check.Checker{}).CheckPaths([]string{dir, missing, "-"}, stdin, func(err error) { skipped = append(skipped, err) })
	if len(results) != len(files)+1 || results[len(results)-1].File != "-" {
		t.Errorf("%d results; want %d, the last from stdin", len(results), len(files)+1)
	}
	if len(skipped) != 1 || !errors.Is(err, check.ErrInput) || !errors.Is(err, skipped[0]) {
		t.Errorf("skipped %v, error %v; want the missing file once, as ErrInput", skipped, err)
	}
}
