package main

import (
	"flag"
	"io"
	"os"

	"github.com/codexrec/codexrec/internal/cli"
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
	data := isSet(fs, "json") || isSet(fs, "jsonl") || isValue(fs, "o", "-") || c.Name == "view" || c.Name == "scenario from-recording"
	return cli.Stdout{Wire: wireStdout[c.Name], Data: data, Color: isValue(fs, "color", "always")}
}

func isSet(fs *flag.FlagSet, name string) bool          { return cli.IsSet(fs, name) }
func isValue(fs *flag.FlagSet, name, value string) bool { return cli.IsValue(fs, name, value) }
func terminalFile(w io.Writer) (*os.File, bool)         { return cli.TerminalFile(w) }
func own(w io.Writer) io.Writer                         { return cli.Own(w) }
func prefixed(w io.Writer, prefix string) io.Writer     { return cli.Prefixed(w, prefix) }
