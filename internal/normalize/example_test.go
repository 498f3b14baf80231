package normalize_test

import (
	"fmt"

	"github.com/codexrec/codexrec/internal/normalize"
)

func Example() {
	n := normalize.MustNew(normalize.Options{Ignore: []string{"/params/item/durationMs"}})
	for _, msg := range []string{
		`{"method":"turn/started","params":{"threadId":"01a226e1-07df-7722-a8ce-6cbb3abe7e16","turn":{"id":"01a226e1-0800-7000-8000-000000000002"}},"emittedAtMs":1795948611543}`,
		`{"method":"item/completed","params":{"turnId":"01a226e1-0800-7000-8000-000000000002","item":{"type":"agentMessage","durationMs":12}}}`,
	} {
		v, err := n.Message([]byte(msg))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(string(normalize.Marshal(v)))
	}
	// Output:
	// {"emittedAtMs":"<time>","method":"turn/started","params":{"threadId":"thread#1","turn":{"id":"turn#1"}}}
	// {"method":"item/completed","params":{"item":{"type":"agentMessage"},"turnId":"turn#1"}}
}
