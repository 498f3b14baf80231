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
// line per message, "NAME CMD: message", masked: a library's own "CMD: " at the
// start of the message is dropped, so the command is said once.
func (a *App) Exit(err error, cmd string, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	prefix := a.Name + " " + cmd + ": "
	if cmd == "" {
		prefix = a.Name + ": "
	}
	say := func(cmd, msg, hint string) {
		first, _, _ := strings.Cut(cmd, " ")
		if rest, ok := strings.CutPrefix(msg, first+": "); ok && first != "" {
			msg = rest
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
