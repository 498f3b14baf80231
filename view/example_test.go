package view_test

import (
	"fmt"
	"os"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/view"
	"github.com/codexrec/codexrec/wire"
)

func ExampleSummarize() {
	for _, line := range []string{
		`{"id":0,"method":"item/commandExecution/requestApproval","params":{"threadId":"t","turnId":"u","itemId":"i","command":"/bin/bash -lc 'echo hi'","reason":"say hi"}}`,
		`{"id":0,"result":{"decision":"accept"}}`,
		`{"method":"item/completed","params":{"item":{"type":"commandExecution","id":"i","command":"/bin/bash -lc 'echo hi'","status":"completed","exitCode":0}}}`,
		`{"id":7,"error":{"code":-32600,"message":"Not initialized"}}`,
	} {
		e := recorder.Entry{Type: recorder.TypeFrame, Dir: wire.ServerToClient, Line: []byte(line + "\n")}
		e.Msg = wire.Classify(e.Line)
		if e.Msg.Kind == wire.KindResponse {
			e.Msg.Method = "item/commandExecution/requestApproval" // set by pairing when recorded
		}
		fmt.Println(view.Summarize(&e))
	}
	// Output:
	// approve command /bin/bash -lc 'echo hi' (say hi)
	// decision accept
	// commandExecution /bin/bash -lc 'echo hi' completed, exit 0
	// error -32600: Not initialized
}

func ExampleMatchMethod() {
	fmt.Println(view.MatchMethod("item/*", "item/agentMessage/delta"))
	fmt.Println(view.MatchMethod("*Approval", "item/fileChange/requestApproval"))
	fmt.Println(view.MatchMethod("turn/start", "turn/started"))
	// Output:
	// true
	// true
	// false
}

// ExampleText prints a recording's timeline, as codexrec show does.
func ExampleText() {
	f, err := os.Open("../fixtures/hermetic/0.171.0/plain.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	rd, err := recorder.NewReader(f, "plain.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	t := &view.Text{W: os.Stdout, Methods: []string{"turn/start"}}
	t.Header(rd.Header().Scenario, rd.Header())
	for e, err := range rd.Entries() {
		if err != nil {
			break
		}
		t.Entry(&e)
	}
	t.Flush()
}
