package replay_test

import (
	"strings"
	"testing"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/replay"
)

// TestDuplicateIDsInRecordedOrder: a recording whose client used one id for two
// requests before the first was answered (hand-written: the real server answers
// whatever the client sends, so only the client's misbehaviour makes this, and a
// test cannot choose which answer the server writes first) is served in recorded
// order, the first answer to the first request, with a duplicate-id problem.
func TestDuplicateIDsInRecordedOrder(t *testing.T) {
	rec := `{"type":"header","format":1}
{"type":"frame","seq":1,"t":0.001,"dir":"c2s","kind":"request","method":"model/list","id":7,"msg":{"id":7,"method":"model/list","params":{"n":1}}}
{"type":"frame","seq":2,"t":0.002,"dir":"c2s","kind":"request","method":"model/list","id":7,"msg":{"id":7,"method":"model/list","params":{"n":2}}}
{"type":"frame","seq":3,"t":0.003,"dir":"s2c","kind":"response","method":"model/list","id":7,"msg":{"id":7,"result":{"answer":"first"}}}
{"type":"frame","seq":4,"t":0.004,"dir":"s2c","kind":"response","method":"model/list","id":7,"msg":{"id":7,"result":{"answer":"second"}}}
{"type":"frame","seq":5,"t":0.005,"dir":"s2c","kind":"response","msg":{"result":{"answer":"no id"}}}
`
	sc, err := replay.Load(strings.NewReader(rec), "dup.jsonl", 0)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	var dup bool
	for _, p := range sc.Problems {
		dup = dup || p.Kind == recorder.ProblemDuplicateID && p.Seq == 2
	}
	if !dup {
		t.Errorf("problems %v: want a duplicate-id problem at frame 2", sc.Problems)
	}
	if w := recorder.Warning("dup.jsonl", sc.Problems); !strings.Contains(w, "frame 2 reuses request id 7 of frame 1") {
		t.Errorf("warning %q", w)
	}
	s := serve(t, &replay.Server{Script: sc})
	s.send(`{"id":7,"method":"model/list","params":{"n":1}}`)
	first := s.response("7")
	s.send(`{"id":7,"method":"model/list","params":{"n":2}}`)
	second := s.response("7")
	if got := first[len(first)-1]; !strings.Contains(got, `"first"`) {
		t.Errorf("first request answered %s", got)
	}
	if got := second[len(second)-1]; !strings.Contains(got, `"second"`) {
		t.Errorf("second request answered %s", got)
	}
	if err := s.finish(); err != nil {
		t.Logf("Serve: %v", err)
	}
}
