package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/codexrec/codexrec/sanitize"
)

// ParseWords parses words (an environment variable's, say, split at white space)
// as the flags of the command named name, without the flags every command has,
// and returns what its Flags return. source names the words in an error, which
// exits UsageCode; a word that is not a flag is one. A command without Flags
// (or no such command) returns nil.
func (a *App) ParseWords(name, source string, words []string) (any, error) {
	c := a.Commands[name]
	if c == nil || c.Flags == nil {
		return nil, nil
	}
	fs := flag.NewFlagSet(source, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg := c.Flags(fs)
	err := fs.Parse(words)
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected %q", fs.Arg(0))
	}
	if err != nil {
		return cfg, ExitWith(a.UsageCode, fmt.Errorf("%s: %v", source, err))
	}
	return cfg, nil
}

// SayAs prints err, masked, as the binary speaking under another name (prefix,
// "NAME (as codex): ") on stderr, and "PREFIXexit CODE: message" on report when
// it is set, and returns its exit code alone (ExitWith(code, nil)): what Exit
// would print said once, in the other name. An error without an *ExitError exits
// UsageCode; nil is nil.
func (a *App) SayAs(err error, prefix string, stderr, report io.Writer) error {
	var ee *ExitError
	if err == nil {
		return nil
	} else if !errors.As(err, &ee) {
		ee = &ExitError{Code: a.UsageCode, Err: err}
	}
	if report != nil {
		fmt.Fprintf(report, "%sexit %d: %s\n", prefix, ee.Code, sanitize.MaskText(err.Error()))
	}
	if ee.Err != nil {
		fmt.Fprintf(stderr, "%s%s\n", prefix, sanitize.MaskText(ee.Err.Error()))
	}
	return ExitWith(ee.Code, nil)
}
