package check_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/check"
)

// FuzzCheck: any recording body, valid or not, is checked without a panic, and every
// finding names a known rule and has a severity.
func FuzzCheck(f *testing.F) {
	// Real frames, a few at a time: small seeds keep the fuzzer's minimizing fast.
	b, err := os.ReadFile(filepath.Join(*fixturesDir, "0.171.0", "approval-accept.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	for i := 1; i+4 <= len(lines); i += 4 {
		f.Add(bytes.Join(append([][]byte{lines[0]}, lines[i:i+4]...), nil))
	}
	f.Add([]byte(`{"type":"header","format":1}` + "\n" +
		`{"type":"frame","seq":1,"t":0,"dir":"s2c","kind":"notification","method":"turn/completed","msg":{"method":"turn/completed","params":{"turn":{}}}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := (&check.Checker{}).Check(bytes.NewReader(data), "fuzz.jsonl")
		if err != nil {
			return
		}
		for _, fd := range res.Findings {
			if _, ok := check.LookupRule(fd.Rule); !ok && !strings.HasPrefix(fd.Rule, "schema/") {
				t.Errorf("finding of unknown rule %q", fd.Rule)
			}
			if fd.Severity < check.Info || fd.Severity > check.Error {
				t.Errorf("finding %s has severity %d", fd.Rule, fd.Severity)
			}
		}
	})
}
