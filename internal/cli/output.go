package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/codexrec/codexrec/internal/termtext"
	"github.com/codexrec/codexrec/recorder"
)

// Stdout is how the output layer treats a command's stdout.
type Stdout struct {
	// Wire: stdout is a protocol stream (a client's server), never touched.
	Wire bool
	// Data: stdout is data (JSON, a file's content): values as recorded, only
	// made safe to print.
	Data bool
	// Exact: stdout is a file's very bytes (a recording, whose frames replay byte
	// for byte): passed on untouched to a pipe or a file, made safe as Data on a
	// terminal.
	Exact bool
	// Color: the command colours its text whether or not stdout is a terminal.
	Color bool
}

// output wraps std's writers in the output layer (internal/termtext): every line a
// command prints is escaped and masked, or only escaped when the reveal flag is
// set, or made terminal-safe without changing its values when stdout is data. The
// returned function writes what is left of a last line.
func (a *App) output(c *Command, fs *flag.FlagSet, std IO) (IO, func() error) {
	// A command that dispatches to subcommands hands on writers this layer
	// already wraps: the subcommand's own layer replaces that one.
	std.Out, std.Err = Own(std.Out), Own(std.Err)
	mode := termtext.Mask
	if std.Reveal || (a.RevealFlag != "" && IsSet(fs, a.RevealFlag)) {
		mode = termtext.Reveal
		std.Reveal = true
	}
	var how Stdout
	if a.Stdout != nil {
		how = a.Stdout(c, fs)
	}
	errW := termtext.New(std.Err, mode)
	errW.Color = IsTerminal(std.Err)
	var outW *termtext.Writer
	if !how.Wire && !(how.Exact && !IsTerminal(std.Out)) {
		m := mode
		if how.Data || how.Exact {
			m = termtext.JSON
		}
		outW = termtext.New(std.Out, m)
		// Colour is the command's own: its SGR sequences pass; recorded text is
		// escaped all the same.
		outW.Color = IsTerminal(std.Out) || how.Color
		std.Out = outW
	}
	std.Err = errW
	std.Log = Prefixed(errW, a.Name+" "+c.Name+": ")
	return std, func() error {
		var err error
		if outW != nil {
			err = outW.Flush()
		}
		if e := errW.Flush(); err == nil {
			err = e
		}
		return err
	}
}

// Own returns the writer under the output layer, for a command's own text that
// holds nothing recorded and must print as it is.
func Own(w io.Writer) io.Writer {
	if t, ok := w.(*termtext.Writer); ok {
		return t.Unwrap()
	}
	return w
}

// TerminalFile is the *os.File beneath w, through the output layer and any
// writer with an Unwrap method.
func TerminalFile(w io.Writer) (*os.File, bool) {
	for {
		switch x := w.(type) {
		case *os.File:
			return x, true
		case interface{ Unwrap() io.Writer }:
			w = x.Unwrap()
		default:
			return nil, false
		}
	}
}

// IsTerminal reports whether w is a character device (a terminal), the only
// place where colour escapes belong.
func IsTerminal(w io.Writer) bool {
	f, ok := TerminalFile(w)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// AutoColour reports whether text written to w is coloured by default: on a
// terminal, unless NO_COLOR is set.
func AutoColour(w io.Writer) bool { return IsTerminal(w) && os.Getenv("NO_COLOR") == "" }

// Colour is the value of the --color flag (Flag registers it): auto (AutoColour),
// always or never.
type Colour string

// Flag registers --color, auto by default, with usage as its help.
func (c *Colour) Flag(fs *flag.FlagSet, usage string) {
	fs.StringVar((*string)(c), "color", "auto", usage)
}

// On decides whether the text written to w is coloured; another value than the
// three is a UsageError.
func (c Colour) On(w io.Writer) (bool, error) {
	switch c {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
		return AutoColour(w), nil
	}
	return false, Usagef("--color %q: want auto, always or never", string(c))
}

// Output is a command's single output: the file -o names, or stdout for "-"; an
// existing file is replaced only with --force (Flags registers both).
type Output struct {
	Path  string
	Force bool
}

// Flags registers -o and --force with their help.
func (o *Output) Flags(fs *flag.FlagSet, pathUsage, forceUsage string) {
	fs.StringVar(&o.Path, "o", "", pathUsage)
	fs.BoolVar(&o.Force, "force", false, forceUsage)
}

// Write writes the output with write: on stdout when Path is "-", else into a
// file of mode 0600 (it may hold recorded content), written to a temporary file
// renamed into place (never through a link), refused if it exists without Force.
func (o Output) Write(stdout io.Writer, write func(io.Writer) error) error {
	if o.Path == "-" {
		bw := bufio.NewWriter(stdout)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	err := recorder.WriteFile(o.Path, o.Force, 0o600, write)
	if errors.Is(err, recorder.ErrExists) {
		return fmt.Errorf("%s exists (--force replaces it)", o.Path)
	}
	return err
}

// Interruptible is a context that SIGINT or SIGTERM cancels: a command's work
// ended by the user.
func Interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
}

// Progress is a status line on w while a long step runs, when w is a terminal:
// each step rewrites it (prefix, then the step) and done clears it. Elsewhere
// both do nothing, so a log keeps only what the command says. Steps are the
// tool's own text, never recorded content.
func Progress(w io.Writer, prefix string) (step func(string), done func()) {
	if !IsTerminal(w) {
		return func(string) {}, func() {}
	}
	own := Own(w)
	var mu sync.Mutex
	shown := false
	step = func(s string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(own, "\r\x1b[K%s%s", prefix, s)
		shown = true
	}
	done = func() {
		mu.Lock()
		defer mu.Unlock()
		if shown {
			fmt.Fprint(own, "\r\x1b[K")
			shown = false
		}
	}
	return step, done
}
