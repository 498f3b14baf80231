package shim_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/codexrec/codexrec/shim"
)

// A session's fate: auto replays what exists and records what does not, except in CI.
func ExampleMode_Decide() {
	for _, ci := range []bool{false, true} {
		a, err := shim.ModeAuto.Decide("testdata/codex/001-initialize.jsonl", false, ci)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(a)
	}
	a, _ := shim.ModeAuto.Decide("testdata/codex/001-initialize.jsonl", true, true)
	fmt.Println(a)
	// Output:
	// record
	// no recording testdata/codex/001-initialize.jsonl (mode auto never records when CI is set: record it on a development machine and commit it)
	// replay
}

// Three sessions of one run, then one named after its test.
func ExampleNamer() {
	dir, _ := os.MkdirTemp("", "recordings")
	defer os.RemoveAll(dir)
	n := &shim.Namer{Dir: dir, Run: "run-1"}
	for _, method := range []string{"initialize", "initialize", "thread/list"} {
		p, _ := n.Next(method)
		fmt.Println(filepath.Base(p))
	}
	named := &shim.Namer{Dir: dir, Run: "run-1", Name: "TestTurn/approval"}
	p, _ := named.Next("initialize")
	fmt.Println(filepath.Base(p))
	// Output:
	// 001-initialize.jsonl
	// 002-initialize.jsonl
	// 003-thread-list.jsonl
	// TestTurn_approval.jsonl
}
