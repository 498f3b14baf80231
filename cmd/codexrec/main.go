// Command codexrec records, validates, replays, captures and diffs sessions of
// OpenAI's codex app-server (JSON-RPC over stdio). Each subcommand lives in its own
// file and registers itself; main only dispatches and turns errors into exit codes.
package main

import (
	"errors"
	"flag"
	"fmt"
	"github.com/codexrec/codexrec/sanitize"
	"io"
	"os"
	"sort"
	"strings"
)

// Version is codexrec's version, set at build time with -ldflags "-X main.Version=...".
var Version = "0.1.0-dev"

// Exit codes, the same for every subcommand.
const (
	exitOK       = 0 // success, no findings
	exitFindings = 1 // findings or differences
	exitUsage    = 2 // usage or I/O error
	exitLeak     = 3 // the leak guard had to redact (published) or could not (quarantined)
)

// command is one subcommand.
type command struct {
	name    string
	args    string // synopsis after the name
	summary string // one line for the command list
	// flags registers the subcommand's flags; run gets the arguments left after them.
	flags func(fs *flag.FlagSet) any
	run   func(cfg any, args []string, io stdio) error
	// interspersed lets flags follow the positional arguments ("diff a b --json");
	// "--" still ends them. record cannot have it: the child's argv, which need not
	// follow "--", has flags of its own.
	interspersed bool
	// dashCommand keeps "--" among the arguments run gets: what follows it is a
	// command line (replay FILE -- COMMAND).
	dashCommand bool
}

// stdio is where a command reads and writes, so tests can run main in-process.
type stdio struct {
	in       io.Reader
	out, err io.Writer
	reveal   bool // --reveal: recorded values unmasked (see output.go)
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("codexrec: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

// exitError carries an exit code chosen by a command.
type exitError struct {
	code int
	err  error // nil when the command already reported everything
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

// usageError marks a mistake in how the command was called; cmd names the command
// ("schema diff") once runCommand has seen it.
type usageError struct{ msg, cmd string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{msg: fmt.Sprintf(format, a...)} }

func main() {
	std := stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}
	if shimName(os.Args[0]) { // a symlink named codex (see shim.go)
		os.Exit(exitCode(shimMain(os.Args[0], &shimConfig{}, os.Args[1:], std), "", std.err))
	}
	stop := startProfiles(os.Stderr)
	code := run(os.Args[1:], std)
	stop()
	os.Exit(code)
}

func run(args []string, std stdio) int {
	if len(args) == 0 {
		printUsage(std.err)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			c, ok := lookupCommand(args[1:])
			if !ok {
				fmt.Fprintf(std.err, "codexrec: no command %q (see codexrec help)\n", strings.Join(args[1:], " "))
				return exitUsage
			}
			printCommandUsage(c, std.out)
			return exitOK
		}
		printUsage(std.out)
		return exitOK
	case "version", "-version", "--version":
		fmt.Fprintf(std.out, "codexrec %s\n", Version)
		return exitOK
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(std.err, "codexrec: unknown command %q (see codexrec help)\n", name)
		return exitUsage
	}
	return exitCode(runCommand(c, args[1:], std), name, std.err)
}

// lookupCommand finds a command by its words ("record", "schema diff").
func lookupCommand(words []string) (*command, bool) {
	c, ok := commands[words[0]]
	if !ok || len(words) == 1 {
		return c, ok
	}
	subs := map[string]map[string]*command{"schema": schemaCommands, "scenario": scenarioCommands, "codex": codexCommands}[words[0]]
	if len(words) > 2 || subs == nil {
		return nil, false
	}
	c, ok = subs[words[1]]
	return c, ok
}

// runCommand parses c's flags from args and runs it. -h/--help prints the
// command's usage on stdout; a bad flag is one line on stderr that points to it.
func runCommand(c *command, args []string, std stdio) error {
	fs := newFlagSet(c, io.Discard)
	cfg, err := configuredFlags(c, fs, args)
	if err != nil {
		return err
	}
	if c.interspersed {
		args, err = parseInterspersed(fs, args, c.dashCommand)
	} else if err = fs.Parse(args); err == nil {
		args = fs.Args()
	}
	if errors.Is(err, flag.ErrHelp) {
		printCommandUsage(c, std.out)
		return nil
	}
	if err != nil {
		err = usagef("%v", err)
	} else {
		out, flush := terminalOutput(c.name, fs, std)
		err = c.run(cfg, args, out)
		if ferr := flush(); err == nil && ferr != nil {
			err = ferr
		}
	}
	var ue usageError
	if errors.As(err, &ue) && ue.cmd == "" {
		ue.cmd = c.name
		return ue
	}
	return err
}

// printCommandUsage prints c's synopsis, summary and flags.
func printCommandUsage(c *command, out io.Writer) {
	fs := newFlagSet(c, out)
	if c.flags != nil {
		c.flags(fs)
	}
	fs.Usage()
}

// parseInterspersed parses flags wherever they stand among the positional arguments,
// which the flag package alone leaves unparsed after the first one; "--" ends flags.
func parseInterspersed(fs *flag.FlagSet, args []string, keepDash bool) ([]string, error) {
	var pos []string
	dash := func(rest []string) []string {
		if keepDash {
			pos = append(pos, "--")
		}
		return append(pos, rest...)
	}
	for len(args) > 0 {
		switch a := args[0]; {
		case a == "--":
			return dash(args[1:]), nil
		case len(a) > 1 && a[0] == '-':
			if err := fs.Parse(args); err != nil {
				return nil, err
			}
			if rest := fs.Args(); len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
				return dash(rest), nil
			}
			args = fs.Args()
		default:
			pos = append(pos, a)
			args = args[1:]
		}
	}
	return pos, nil
}

func exitCode(err error, name string, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	stderr = &destutter{w: stderr, name: name}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "codexrec %s: %s\n", name, sanitize.MaskText(ee.err.Error()))
		}
		return ee.code
	}
	var ue usageError
	if errors.As(err, &ue) {
		if ue.cmd != "" {
			name = ue.cmd
		}
		fmt.Fprintf(stderr, "codexrec %s: %s (see codexrec help %s)\n", name, sanitize.MaskText(ue.msg), name)
		return exitUsage
	}
	fmt.Fprintf(stderr, "codexrec %s: %s\n", name, sanitize.MaskText(err.Error()))
	return exitUsage
}

func newFlagSet(c *command, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("codexrec "+c.name, flag.ContinueOnError)
	fs.SetOutput(out)
	if configCommands[c.name] {
		fs.String("config", "", "read settings from `FILE` instead of .codexrec.toml found from the working directory upwards (or $CODEXREC_CONFIG; docs/config.md)")
	}
	fs.Bool("reveal", false, revealUsage)
	fs.Usage = func() {
		fmt.Fprintf(out, "usage: codexrec %s %s\n\n%s\n", c.name, c.args, c.summary)
		var n int
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintln(out, "\nflags:")
			fs.PrintDefaults()
		}
		fmt.Fprintln(out, "\nexit codes: 0 ok, 1 findings or differences, 2 usage or I/O error, 3 leak guard refused")
	}
	return fs
}

func printUsage(w io.Writer) {
	fmt.Fprintf(w, "codexrec %s: record, validate, replay, capture and diff codex app-server sessions\n\nusage: codexrec COMMAND [flags] [args]\n\ncommands:\n", Version)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(w, "  %-10s %s\n  %-10s %s\n", "help", "help COMMAND: a command's flags", "version", "print codexrec's version")
	fmt.Fprintln(w, "\nexit codes: 0 ok, 1 findings or differences, 2 usage or I/O error, 3 leak guard refused")
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// destutter drops a library's own "NAME: " from the start of a message that is
// already prefixed "codexrec NAME: " ("codexrec replay: replay: open" says replay once).
type destutter struct {
	w    io.Writer
	name string
}

func (d *destutter) Write(b []byte) (int, error) {
	prefix := "codexrec " + d.name + ": "
	out := b
	if s := string(b); strings.HasPrefix(s, prefix) {
		first, _, _ := strings.Cut(d.name, " ")
		if rest, ok := strings.CutPrefix(s[len(prefix):], first+": "); ok {
			out = []byte(prefix + rest)
		}
	}
	if _, err := d.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}
