package jsonx_test

import (
	"fmt"

	"github.com/codexrec/codexrec/internal/jsonx"
)

func Example() {
	fmt.Println(string(jsonx.AppendString(nil, "a \"quote\"\n<b>")))
	// As the app-server writes it: backspace in its short form.
	fmt.Println(string(jsonx.ShortBF.AppendContent(nil, "x\by")))
	// Output:
	// "a \"quote\"\n<b>"
	// x\by
}
