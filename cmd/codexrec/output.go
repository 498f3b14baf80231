package main

import (
	"flag"
	"io"
	"os"

	"github.com/codexrec/codexrec/internal/termtext"
)

// wireStdout names the commands whose stdout is the wire (a client's server), which
// the output layer never touches.
var wireStdout = map[string]bool{"record": true, "replay": true, "shim": true, "mcp-fixture": true}

// revealUsage is the global --reveal flag's help.
const revealUsage = "print recorded values as they are (secret-shaped values unmasked, on the terminal and in HTML pages); control characters are escaped all the same"

// terminalOutput wraps std's writers in the output layer (internal/termtext): every
// line a command prints is escaped and masked, or only escaped under --reveal, or
// made terminal-safe without changing its values under --json/--jsonl. The returned
// function writes what is left of a last line.
func terminalOutput(name string, fs *flag.FlagSet, std stdio) (stdio, func() error) {
	// A command that dispatches to subcommands (schema, scenario) hands on writers
	// this layer already wraps: the subcommand's own layer replaces that one.
	if w, ok := std.out.(*termtext.Writer); ok {
		std.out = w.Unwrap()
	}
	if w, ok := std.err.(*termtext.Writer); ok {
		std.err = w.Unwrap()
	}
	mode := termtext.Mask
	if std.reveal || isSet(fs, "reveal") {
		mode = termtext.Reveal
		std.reveal = true
	}
	errW := termtext.New(std.err, mode)
	errW.Color = isTerminal(std.err)
	out := std.out
	var outW *termtext.Writer
	if !wireStdout[name] {
		m := mode
		if isSet(fs, "json") || isSet(fs, "jsonl") || isValue(fs, "o", "-") || name == "view" || name == "scenario from-recording" {
			m = termtext.JSON // data: values as recorded, only made safe to print
		}
		outW = termtext.New(std.out, m)
		// Colour is the command's own (--color always, or a terminal): its SGR
		// sequences pass; recorded text is escaped all the same.
		outW.Color = isTerminal(std.out) || isValue(fs, "color", "always")
		out = outW
	}
	wrapped := stdio{in: std.in, out: out, err: errW, reveal: std.reveal}
	return wrapped, func() error {
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

func isSet(fs *flag.FlagSet, name string) bool { return isValue(fs, name, "true") }

func isValue(fs *flag.FlagSet, name, value string) bool {
	f := fs.Lookup(name)
	return f != nil && f.Value.String() == value
}

// terminalFile is the *os.File beneath w, through the output layer.
func terminalFile(w io.Writer) (*os.File, bool) {
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

// own returns the writer under the output layer, for the command's own text that
// holds nothing recorded and must print as it is (serve's address with its access
// token, which is secret-shaped).
func own(w io.Writer) io.Writer {
	if t, ok := w.(*termtext.Writer); ok {
		return t.Unwrap()
	}
	return w
}
