package diff_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/codexrec/codexrec/diff"
)

func Example() {
	dir := filepath.Join("testdata", "pairs", "json-in-string")
	old, nw, err := diff.LoadFiles(filepath.Join(dir, "old.jsonl"), filepath.Join(dir, "new.jsonl"), diff.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	old.Name, nw.Name = "old.jsonl", "new.jsonl"
	r := diff.Compare(old, nw)
	fmt.Println("same:", r.Same)
	r.Groups = r.Groups[:1]
	r.WriteText(os.Stdout, false)
	// Output:
	// same: false
	// old: old.jsonl (codex 0.163.0, scenario hand-made)
	// new: new.jsonl (codex 0.163.0, scenario hand-made)
	// summary: different
	//   c2s  messages 4 old, 4 new: 4 aligned (0 changed), 0 added, 0 removed
	//   s2c  messages 7 old, 7 new: 7 aligned (2 changed), 0 added, 0 removed
	// changes:
	//   s2c notification item/completed
	//     + /params/item/arguments#/workdir added "/x" [seq 10→10]
	//     ~ /params/item/arguments#/cmd "echo hi" → "echo hello" [seq 10→10]
}
