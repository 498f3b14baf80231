package schema_test

import (
	"testing"

	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/wire"
)

// TestDuplicateID: a request reusing the id of one still unanswered is a
// duplicate-id finding; an id reused after its answer is not.
func TestDuplicateID(t *testing.T) {
	set, err := schema.Load("0.163.0")
	if err != nil {
		t.Fatal(err)
	}
	v := schema.NewValidator(set)
	lines := []struct {
		dir  wire.Direction
		line string
		dup  bool
	}{
		{wire.ClientToServer, `{"id":1,"method":"model/list","params":{}}`, false},
		{wire.ServerToClient, `{"id":1,"result":{"data":[]}}`, false},
		{wire.ClientToServer, `{"id":1,"method":"model/list","params":{}}`, false},
		{wire.ClientToServer, `{"id":1,"method":"model/list","params":{}}`, true},
	}
	for i, l := range lines {
		var dup bool
		for _, f := range v.Check(&wire.Frame{Seq: int64(i + 1), Dir: l.dir, Line: []byte(l.line + "\n")}) {
			dup = dup || f.Rule == schema.RuleDuplicateID && f.Rule.Severity() == schema.SeverityError
		}
		if dup != l.dup {
			t.Errorf("frame %d: duplicate-id %v, want %v", i+1, dup, l.dup)
		}
	}
}
