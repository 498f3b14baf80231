package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/codexrec/codexrec/sanitize"
)

// UsageError is a mistake in how a command was called; Cmd names the command
// ("schema diff") once RunCommand has seen it. Exit prints it with a pointer to
// the command's help.
type UsageError struct{ Msg, Cmd string }

func (e UsageError) Error() string { return e.Msg }

// Usagef is a UsageError with a formatted message.
func Usagef(format string, a ...any) error { return UsageError{Msg: fmt.Sprintf(format, a...)} }

// ExitCoder is an error that chooses the exit code. What Exit prints is its
// Unwrap result, nothing when that is nil (the command reported everything).
type ExitCoder interface {
	error
	ExitCode() int
	Unwrap() error
}

// Exit returns err's exit code (0 for nil) after printing it on stderr as one
// line per message, "NAME CMD: message", masked: a library's own "CMD: " (a word
// of CMD) at the start of the message is dropped, so the command is said once. A
// subcommand's error is said under its full name ("NAME GROUP SUB: ").
func (a *App) Exit(err error, cmd string, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	if se := (*subError)(nil); errors.As(err, &se) {
		cmd = se.cmd
	}
	prefix := a.Name + " " + cmd + ": "
	if cmd == "" {
		prefix = a.Name + ": "
	}
	say := func(cmd, msg, hint string) {
		for _, w := range strings.Fields(cmd) { // "schema: " or "diff: " of "schema diff"
			if rest, ok := strings.CutPrefix(msg, w+": "); ok {
				msg = rest
				break
			}
		}
		fmt.Fprintf(stderr, "%s%s%s\n", prefix, sanitize.MaskText(msg), hint)
	}
	var ec ExitCoder
	if errors.As(err, &ec) {
		if inner := ec.Unwrap(); inner != nil {
			say(cmd, inner.Error(), "")
		}
		return ec.ExitCode()
	}
	var ue UsageError
	if errors.As(err, &ue) {
		if ue.Cmd != "" {
			cmd = ue.Cmd
			prefix = a.Name + " " + cmd + ": "
		}
		say(cmd, ue.Msg, fmt.Sprintf(" (see %s help %s)", a.Name, cmd))
		return a.UsageCode
	}
	say(cmd, err.Error(), "")
	return a.UsageCode
}

// Prefixed is w with prefix written at the start of every line: what a library
// logs, said as the command. It is safe for concurrent use.
func Prefixed(w io.Writer, prefix string) io.Writer {
	return &prefixWriter{w: w, prefix: []byte(prefix), start: true}
}

type prefixWriter struct {
	mu     sync.Mutex
	w      io.Writer
	prefix []byte
	start  bool
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []byte
	for _, c := range b {
		if p.start {
			out = append(out, p.prefix...)
		}
		out = append(out, c)
		p.start = c == '\n'
	}
	if _, err := p.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}

// ExitError is an error with the exit code it calls for: Err is what Exit prints,
// nil when the command already reported everything.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}
func (e *ExitError) Unwrap() error { return e.Err }
func (e *ExitError) ExitCode() int { return e.Code }

// ExitWith is an *ExitError: exit code, printing err (nil: nothing).
func ExitWith(code int, err error) error { return &ExitError{Code: code, Err: err} }

// Decided reports whether err already says how to exit: an ExitCoder or a
// UsageError in its chain.
func Decided(err error) bool {
	return errors.As(err, new(ExitCoder)) || errors.As(err, new(UsageError))
}

// Code gives the errors Match matches an exit code, with Hint (the flags that would
// change it, say) added to the message.
type Code struct {
	// Match returns the error to print for err (err itself, or one in its
	// chain), nil when err is not one of its errors.
	Match func(err error) error
	Code  int
	Hint  string
}

// Codes is an error-to-exit-code table, the first match deciding.
type Codes []Code

// Exit is err with its exit code: nil for nil, err itself when it decides already
// (Decided), else the first matching Code's (its error printed with the hint),
// else fallback, printing err.
func (cs Codes) Exit(err error, fallback int) error {
	if err == nil || Decided(err) {
		return err
	}
	for _, c := range cs {
		if say := c.Match(err); say != nil {
			if c.Hint != "" {
				say = fmt.Errorf("%w%s", say, c.Hint)
			}
			return ExitWith(c.Code, say)
		}
	}
	return ExitWith(fallback, err)
}

// Is matches an error that is one of targets (errors.Is), printing it whole.
func Is(targets ...error) func(error) error {
	return func(err error) error {
		for _, t := range targets {
			if errors.Is(err, t) {
				return err
			}
		}
		return nil
	}
}

// As matches an error with a T in its chain (errors.As), printing it whole.
func As[T error]() func(error) error {
	return func(err error) error {
		if errors.As(err, new(T)) {
			return err
		}
		return nil
	}
}

// Found matches an error with a T in its chain, printing that T alone (without
// the context wrapped around it).
func Found[T error]() func(error) error {
	return func(err error) error {
		var t T
		if errors.As(err, &t) {
			return t
		}
		return nil
	}
}

// Refusal is a usage error that applies when a condition holds (When).
type Refusal struct {
	bad bool
	msg string
}

// When is the usage error msg, applying when bad.
func When(bad bool, msg string) Refusal { return Refusal{bad, msg} }

// Refuse is the first refusal that applies as a UsageError, else nil: how a
// command refuses flags and arguments that do not go together.
func Refuse(rs ...Refusal) error {
	for _, r := range rs {
		if r.bad {
			return Usagef("%s", r.msg)
		}
	}
	return nil
}
