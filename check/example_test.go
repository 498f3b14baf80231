package check_test

import (
	"fmt"
	"path/filepath"

	"github.com/codexrec/codexrec/check"
)

// A CI gate over a committed recording: run every rule, schema validation included,
// and fail on errors.
func ExampleChecker() {
	ck := &check.Checker{Schema: check.SchemaValidator("", "")}
	res, err := ck.CheckFile(filepath.Join("..", "fixtures", "hermetic", "0.171.0", "interrupt.jsonl"))
	if err != nil {
		fmt.Println("unreadable:", err)
		return
	}
	fmt.Println("turns:", res.Turns, "errors:", res.Count(check.Error))
	for _, f := range res.Findings {
		if f.Severity >= check.Warning {
			fmt.Println(f.Severity, f.Rule)
		}
	}
	// Output:
	// turns: 1 errors: 0
	// warning item-abandoned
}
