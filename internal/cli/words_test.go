package cli_test

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/cli"
)

// TestParseWords: words parse as the named command's flags; a bad flag or a word
// that is not one is a usage-coded error naming the words' source.
func TestParseWords(t *testing.T) {
	a := &cli.App{Name: "tool", UsageCode: 2, Commands: map[string]*cli.Command{
		"run": {Name: "run", Flags: func(fs *flag.FlagSet) any { return fs.Int("n", 1, "") }},
	}}
	cfg, err := a.ParseWords("run", "RUN_FLAGS", []string{"-n", "5"})
	if err != nil || *cfg.(*int) != 5 {
		t.Fatalf("ParseWords: %v, %v", cfg, err)
	}
	if cfg, err := a.ParseWords("run", "RUN_FLAGS", nil); err != nil || *cfg.(*int) != 1 {
		t.Errorf("no words: %v, %v; want the defaults", cfg, err)
	}
	for _, words := range [][]string{{"-x"}, {"-n", "2", "extra"}} {
		_, err := a.ParseWords("run", "RUN_FLAGS", words)
		var ee *cli.ExitError
		if !errors.As(err, &ee) || ee.Code != 2 || !strings.HasPrefix(err.Error(), "RUN_FLAGS: ") {
			t.Errorf("%q: %v, want a code 2 error saying RUN_FLAGS", words, err)
		}
	}
	if cfg, err := a.ParseWords("none", "X", nil); cfg != nil || err != nil {
		t.Errorf("unknown command: %v, %v", cfg, err)
	}
}

// TestSayAs: the error is said once under the other name, masked, with its exit
// code on the report; what is returned carries the code alone.
func TestSayAs(t *testing.T) {
	a := &cli.App{Name: "tool", UsageCode: 2}
	var stderr, report bytes.Buffer
	err := a.SayAs(cli.ExitWith(3, errors.New("leak of sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD")), "tool (as x): ", &stderr, &report)
	var ee *cli.ExitError
	if !errors.As(err, &ee) || ee.Code != 3 || ee.Err != nil {
		t.Fatalf("SayAs: %v, want exit 3 with nothing to print", err)
	}
	if !strings.HasPrefix(stderr.String(), "tool (as x): leak of ") || strings.Contains(stderr.String(), "abcdefghijklmnop") {
		t.Errorf("stderr %q: want the message under the prefix, masked", stderr.String())
	}
	if !strings.HasPrefix(report.String(), "tool (as x): exit 3: leak of ") {
		t.Errorf("report %q", report.String())
	}
	stderr.Reset()
	if err := a.SayAs(errors.New("plain"), "p: ", &stderr, nil); !errors.As(err, &ee) || ee.Code != 2 || stderr.String() != "p: plain\n" {
		t.Errorf("plain error: %v, stderr %q; want the usage code", err, stderr.String())
	}
	if a.SayAs(nil, "p: ", &stderr, nil) != nil {
		t.Error("nil said as an error")
	}
}
