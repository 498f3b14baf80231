package sanitize_test

import (
	"fmt"
	"strings"

	"github.com/codexrec/codexrec/sanitize"
)

func Example() {
	z, err := sanitize.New(sanitize.Options{
		Secrets: []sanitize.Secret{{Name: "ACCESS_TOKEN", Value: "fake-access-token-123456"}},
		Maps:    []sanitize.Map{{From: "/home/ann/project", To: "<cwd>"}},
		Salt:    "example",
	})
	if err != nil {
		panic(err)
	}
	line := `{"method":"item/commandExecution/outputDelta","params":{"delta":"cd /home/ann/project && echo fake-access-token-123456\n"}}` + "\n"
	out, redactions := z.Frame([]byte(line))
	fmt.Print(string(out))
	for _, r := range redactions {
		fmt.Println(r.Rule, r.Pointer, r.Placeholder)
	}
	leaks, _ := z.Scan(strings.NewReader(line))
	fmt.Println(leaks[0].Rule, leaks[0].Pointer, leaks[0].Preview)
	// Output:
	// {"method":"item/commandExecution/outputDelta","params":{"delta":"cd <cwd> && echo <redacted:known-secret:f8bf6f>\n"}}
	// known-secret /params/delta <redacted:known-secret:f8bf6f>
	// known-secret /params/delta fake…(24 chars)
}
