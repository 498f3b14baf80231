package setting_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/codexrec/codexrec/setting"
)

// TestErrorText: a reason reads between the field and the other one; any other
// error follows the field; a value is quoted after.
func TestErrorText(t *testing.T) {
	errOwn := setting.Reason("chooses its own address")
	for _, tc := range []struct {
		err  *setting.Error
		want string
	}{
		{&setting.Error{Setting: "Upstream", With: "Command", Err: setting.ErrExcludes}, "Upstream excludes Command"},
		{&setting.Error{Setting: "From", Err: setting.ErrRequired}, "From is required"},
		{&setting.Error{Setting: "Segment", Value: "0", Err: setting.ErrRange}, `Segment is out of range ("0")`},
		{&setting.Error{Setting: "Command", Value: "--listen x", Err: errOwn}, `Command chooses its own address ("--listen x")`},
		{&setting.Error{Setting: "Maps", Value: "a", Err: errors.New("want FROM=TO")}, `Maps: want FROM=TO ("a")`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%#v: %q, want %q", tc.err, got, tc.want)
		}
	}
}

// TestReasonsDistinct: reasons are told apart by errors.Is even when their words
// are the same, and a wrapped Error still says its reason.
func TestReasonsDistinct(t *testing.T) {
	a, b := setting.Reason("is missing"), setting.Reason("is missing")
	if errors.Is(a, b) || !errors.Is(a, a) {
		t.Error("two reasons with the same words are one")
	}
	err := fmt.Errorf("starting: %w", &setting.Error{Setting: "To", Err: setting.ErrRequired})
	var se *setting.Error
	if !errors.As(err, &se) || se.Setting != "To" || !errors.Is(err, setting.ErrRequired) || errors.Is(err, setting.ErrExcludes) {
		t.Errorf("%v: not a refused To", err)
	}
}

func ExampleError() {
	err := fmt.Errorf("record: %w", &setting.Error{Setting: "Upstream", With: "Command", Err: setting.ErrExcludes})
	var se *setting.Error
	if errors.As(err, &se) && errors.Is(err, setting.ErrExcludes) {
		fmt.Printf("refused %s with %s\n", se.Setting, se.With)
	}
	fmt.Println(err)
	// Output:
	// refused Upstream with Command
	// record: Upstream excludes Command
}
