package main

import (
	"context"
	"os/signal"
	"syscall"

	"cmp"

	"github.com/codexrec/codexrec/sanitize"

	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/recorder"
)

// wireStdout names the commands whose stdout is the wire (a client's server), which
// the output layer never touches.
var wireStdout = map[string]bool{"record": true, "replay": true, "shim": true, "mcp-fixture": true}

// revealUsage is the global --reveal flag's help.
const revealUsage = "print recorded values as they are (secret-shaped values unmasked, on the terminal and in HTML pages); control characters are escaped all the same"

// stdoutOf is how the output layer treats c's stdout: data (values as recorded,
// made safe) under --json, --jsonl and -o -, and for view and scenario
// from-recording; colour forced by --color always.
func stdoutOf(c *cli.Command, fs *flag.FlagSet) cli.Stdout {
	data := cli.IsSet(fs, "json") || cli.IsSet(fs, "jsonl") || cli.IsValue(fs, "o", "-") || c.Name == "view" || c.Name == "scenario from-recording"
	return cli.Stdout{Wire: wireStdout[c.Name], Data: data, Color: cli.IsValue(fs, "color", "always")}
}

func own(w io.Writer) io.Writer                     { return cli.Own(w) }
func prefixed(w io.Writer, prefix string) io.Writer { return cli.Prefixed(w, prefix) }

// writeOutput writes a command's single output to path, or to stdout when path is
// "-": a file is 0600 (it holds recorded content), written to a temporary file
// renamed into place (never through a link), refused if it exists without force.
func writeOutput(path string, force bool, std stdio, write func(io.Writer) error) error {
	if path == "-" {
		bw := bufio.NewWriter(std.out)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	err := recorder.WriteFile(path, force, 0o600, write)
	if errors.Is(err, recorder.ErrExists) {
		return fmt.Errorf("%s exists (use --force to overwrite)", path)
	}
	return err
}

// wantColour decides whether the text report is coloured.
func wantColour(mode string, std stdio) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
		return cli.IsTerminal(std.out) && os.Getenv("NO_COLOR") == "", nil
	}
	return false, usagef("--color %q: want auto, always or never", mode)
}

// verdict is a report's exit: an error 2 with its message, input that could not be
// read 2 (each said already), findings 1.
func verdict(err error, unread, findings bool) error {
	switch {
	case err != nil:
		return &exitError{code: exitUsage, err: err}
	case unread:
		return &exitError{code: exitUsage}
	case findings:
		return &exitError{code: exitFindings}
	}
	return nil
}

// firstSet is the first of its arguments that is not empty.
var firstSet = cmp.Or[string]

// warnProblems prints a one-line warning about a recording's structural problems
// (a torn last line, seq out of order, ...) once it has been read; check reports
// them as findings instead.
func warnProblems(stderr io.Writer, cmd string, rd interface{ Warning() string }) {
	if w := rd.Warning(); w != "" {
		fmt.Fprintf(stderr, "codexrec %s: %s\n", cmd, sanitize.MaskText(w))
	}
}

// recordingProblems adapts a whole recording to warnProblems.
type recordingProblems struct{ *recorder.Recording }

func (r recordingProblems) Warning() string { return recorder.Warning(r.Name, r.Problems) }

// interruptible is a context that SIGINT or SIGTERM cancels.
func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
}

// exitFor is the exit status of an error from the libraries that write
// recordings: a bad sanitizer setting names its flag, a recording in the way says
// whether --force helps, the leak guard's refusal or redaction is exitLeak,
// anything else is usage or I/O.
func exitFor(err error) error {
	var se *sanitize.SettingError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		return settingError(err)
	case errors.Is(err, recorder.ErrExists) || errors.Is(err, recorder.ErrNotReplaceable):
		return createError(err)
	}
	return finishError(err)
}
