package schema_test

import (
	"fmt"

	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/wire"
)

func ExampleValidator() {
	set, err := schema.Load("0.163.0")
	if err != nil {
		panic(err)
	}
	v := schema.NewValidator(set)
	session := []struct {
		dir  wire.Direction
		line string
	}{
		{wire.ClientToServer, `{"id":1,"method":"turn/start","params":{"threadId":7,"input":[]}}`},
		{wire.ServerToClient, `{"id":1,"error":{"code":-32600,"message":"Invalid request"}}`},
		{wire.ServerToClient, `{"method":"item/started","params":{"threadId":"t","turnId":"u","startedAtMs":1,"item":{"type":"agentMessage","id":"i","text":"","startedAtMs":1}}}`},
	}
	for i, m := range session {
		for _, f := range v.Check(&wire.Frame{Seq: int64(i + 1), Dir: m.dir, Line: []byte(m.line + "\n")}) {
			fmt.Println(f)
		}
	}
	// Output:
	// 1 c2s turn/start invalid /params/threadId: wrong type: got number, want string
	// 3 s2c item/started undeclared-field /params/item/startedAtMs: not declared by the codex 0.163.0 schema
}
