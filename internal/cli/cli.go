// Package cli is the machinery of a command-line binary made of subcommands: the
// command table, dispatch, help and usage text, flags anywhere on the line ("--"
// ends them), errors printed as one prefixed line with an exit code, shell
// completion from the table, a config file's settings bound onto flags, the
// terminal output layer (internal/termtext) around each command's writers, and
// profiling hooks, and helpers every command shares: exit codes from a table of
// errors (Codes), refusals of flags that do not go together (Refuse), a single
// output (-o FILE or -, --force) and --color, a command's flags parsed from words
// such as an environment variable's (ParseWords), and an error said once under
// another name (SayAs). It names no binary or command, and
// no flag but the conventional ones those helpers register: main gives its name,
// version and table (App), and the flags it wants treated specially.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// IO is where a command reads and writes.
type IO struct {
	In       io.Reader
	Out, Err io.Writer
	// Log is Err with the command's name at the start of each line ("tool
	// grp echo: "): where the command and the libraries it calls speak.
	Log    io.Writer
	Reveal bool // recorded values print unmasked (App.RevealFlag was given)
}

// Command is one subcommand.
type Command struct {
	Name    string // its words after the binary's name ("schema diff")
	Args    string // synopsis after the name
	Summary string // one line for the command list
	// Flags registers the command's flags and returns what Run gets as cfg; nil
	// for a command without flags of its own.
	Flags func(fs *flag.FlagSet) any
	// Run gets the arguments left after the flags; nil for a command that only
	// dispatches to its Subcommands.
	Run func(cfg any, args []string, io IO) error
	// Interspersed lets flags follow the positional arguments ("diff a b --json");
	// "--" still ends them. A command whose arguments are another command line,
	// with flags of its own, cannot have it. A command without Flags and without
	// Subcommands has it always (it takes only the flags every command has).
	Interspersed bool
	// DashCommand keeps "--" among the arguments Run gets: what follows it is a
	// command line.
	DashCommand bool
	// Subcommands are the commands "NAME SUB", for help, completion and dispatch:
	// without Run, the first argument names the one to run (App.Dispatch).
	Subcommands map[string]*Command
	// Config says the command takes settings from App.Config's file.
	Config bool
	// Operands is how many arguments Run takes, refused before it runs; nil
	// leaves them to Run.
	Operands *Operands
}

// Operands are the positional arguments a command takes: Min to Max of them (Max
// -1: no limit), said as Want when the count is refused ("want " + Want); a
// command taking none (Max 0) names the arguments it got instead.
type Operands struct {
	Min, Max int
	Want     string
}

// One is exactly one operand, what ("recording"); Two is two, what naming both
// ("recordings, OLD and NEW"); Some is one or more, what plural ("recordings");
// None is none.
func One(what string) *Operands  { return &Operands{1, 1, "exactly one " + what} }
func Two(what string) *Operands  { return &Operands{2, 2, "two " + what} }
func Some(what string) *Operands { return &Operands{1, -1, "one or more " + what} }
func None() *Operands            { return &Operands{} }

// check refuses a count of arguments outside o; a nil o takes any.
func (o *Operands) check(args []string) error {
	if o == nil || len(args) >= o.Min && (o.Max < 0 || len(args) <= o.Max) {
		return nil
	}
	if o.Max == 0 {
		return Usagef("unexpected arguments %q", args)
	}
	return Usagef("want %s", o.Want)
}

// App is a binary: its commands and how it reports. Exit codes follow one rule:
// a usage error or any error without an ExitCode method exits UsageCode (the
// binary's "usage or I/O" code).
type App struct {
	Name, Version, Summary string
	Commands               map[string]*Command
	ExitCodes              string // the last line of every help text
	UsageCode              int
	// RevealFlag names the boolean flag every command takes that prints recorded
	// values as they are; RevealUsage is its help. "" registers none.
	RevealFlag, RevealUsage string
	// Stdout says how the output layer treats a command's stdout once its flags
	// are parsed; nil is Text for every command.
	Stdout func(c *Command, fs *flag.FlagSet) Stdout
	// Config binds a config file's settings to the flags of the commands that
	// take them; nil for none.
	Config *Config
}

// Main runs the command args name ("help" and "version" are built in) and returns
// the exit code, having printed any error on io.Err.
func (a *App) Main(args []string, std IO) int {
	if len(args) == 0 {
		a.PrintUsage(std.Err)
		return a.UsageCode
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) == 1 {
			a.PrintUsage(std.Out)
			return 0
		}
		c, ok := a.Lookup(args[1:])
		if !ok {
			fmt.Fprintf(std.Err, "%s: no command %q (see %s help)\n", a.Name, strings.Join(args[1:], " "), a.Name)
			return a.UsageCode
		}
		a.PrintCommandUsage(c, std.Out)
		return 0
	case "version", "-version", "--version":
		fmt.Fprintf(std.Out, "%s %s\n", a.Name, a.Version)
		return 0
	}
	c, ok := a.Commands[args[0]]
	if !ok {
		fmt.Fprintf(std.Err, "%s: unknown command %q (see %s help)\n", a.Name, args[0], a.Name)
		return a.UsageCode
	}
	return a.Exit(a.RunCommand(c, args[1:], std), c.Name, std.Err)
}

// Lookup finds a command by its words ("record", "schema diff").
func (a *App) Lookup(words []string) (*Command, bool) {
	c, ok := a.Commands[words[0]]
	if !ok || len(words) == 1 {
		return c, ok
	}
	if len(words) > 2 || c.Subcommands == nil {
		return nil, false
	}
	c, ok = c.Subcommands[words[1]]
	return c, ok
}

// RunCommand parses c's flags from args (after the config file's settings) and
// runs it in the output layer. -h/--help prints the command's usage on stdout; a
// bad flag is a UsageError.
func (a *App) RunCommand(c *Command, args []string, std IO) error {
	fs := a.flagSet(c, io.Discard)
	var cfg any
	err := a.Config.load(c, args)
	if err == nil && c.Flags != nil {
		cfg = c.Flags(fs)
		err = a.Config.applied()
	}
	if err != nil {
		return err
	}
	if c.Interspersed || (c.Flags == nil && c.Subcommands == nil) {
		args, err = ParseInterspersed(fs, args, c.DashCommand)
	} else if err = fs.Parse(args); err == nil {
		args = fs.Args()
	}
	if errors.Is(err, flag.ErrHelp) {
		a.PrintCommandUsage(c, std.Out)
		return nil
	}
	if err != nil {
		err = Usagef("%s", flagError(err))
	} else if err = c.Operands.check(args); err == nil {
		out, flush := a.output(c, fs, std)
		if c.Run != nil {
			err = c.Run(cfg, args, out)
		} else {
			err = a.Dispatch(c, args, out)
		}
		if ferr := flush(); err == nil && ferr != nil {
			err = ferr
		}
	}
	var ue UsageError
	if errors.As(err, &ue) && ue.Cmd == "" {
		ue.Cmd = c.Name
		return ue
	}
	return err
}

// flagError says a refused flag value as --NAME "VALUE": why, where the flag
// package says invalid value "VALUE" for flag -NAME: why; other errors as they are.
func flagError(err error) string {
	msg := err.Error()
	rest, ok := strings.CutPrefix(msg, "invalid value ")
	if !ok {
		rest, ok = strings.CutPrefix(msg, "invalid boolean value ")
	}
	value, qerr := strconv.QuotedPrefix(rest)
	if !ok || qerr != nil {
		return msg
	}
	tail, ok := strings.CutPrefix(rest[len(value):], " for flag -")
	if !ok {
		tail, ok = strings.CutPrefix(rest[len(value):], " for -")
	}
	name, why, cut := strings.Cut(tail, ": ")
	if !ok || !cut {
		return msg
	}
	return "--" + name + " " + value + ": " + why
}

// Dispatch runs the subcommand of c that args[0] names with the rest of args.
func (a *App) Dispatch(c *Command, args []string, std IO) error {
	names := strings.Join(slices.Sorted(maps.Keys(c.Subcommands)), ", ")
	if len(args) == 0 {
		return Usagef("want a subcommand: %s", names)
	}
	sub, ok := c.Subcommands[args[0]]
	if !ok {
		return Usagef("unknown subcommand %q (want %s)", args[0], names)
	}
	if err := a.RunCommand(sub, args[1:], std); err != nil {
		return &subError{sub.Name, err}
	}
	return nil
}

// subError is a subcommand's error, said under its full name ("schema diff").
type subError struct {
	cmd string
	err error
}

func (e *subError) Error() string { return e.err.Error() }
func (e *subError) Unwrap() error { return e.err }

// flagSet is c's flag set before its own flags: the ones every command (or every
// command taking settings) has.
func (a *App) flagSet(c *Command, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(a.Name+" "+c.Name, flag.ContinueOnError)
	fs.SetOutput(out)
	if c.Config && a.Config != nil {
		fs.String(a.Config.Flag, "", a.Config.Usage)
	}
	if a.RevealFlag != "" {
		fs.Bool(a.RevealFlag, false, a.RevealUsage)
	}
	fs.Usage = func() {
		fmt.Fprintf(out, "usage: %s %s %s\n\n%s\n", a.Name, c.Name, c.Args, c.Summary)
		var n int
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintln(out, "\nflags:")
			fs.PrintDefaults()
		}
		a.printExitCodes(out)
	}
	return fs
}

// PrintCommandUsage prints c's synopsis, summary and flags.
func (a *App) PrintCommandUsage(c *Command, out io.Writer) {
	fs := a.flagSet(c, out)
	if c.Flags != nil {
		c.Flags(fs)
	}
	fs.Usage()
}

// PrintUsage prints the list of commands.
func (a *App) PrintUsage(w io.Writer) {
	fmt.Fprintf(w, "%s %s: %s\n\nusage: %s COMMAND [flags] [args]\n\ncommands:\n", a.Name, a.Version, a.Summary, a.Name)
	width := 10
	for n := range a.Commands {
		width = max(width, len(n))
	}
	for _, n := range a.names() {
		fmt.Fprintf(w, "  %-*s %s\n", width, n, a.Commands[n].Summary)
	}
	fmt.Fprintf(w, "  %-*s %s\n  %-*s %s\n", width, "help", "help COMMAND: a command's flags", width, "version", "print "+a.Name+"'s version")
	a.printExitCodes(w)
}

func (a *App) printExitCodes(w io.Writer) {
	if a.ExitCodes != "" {
		fmt.Fprintf(w, "\n%s\n", a.ExitCodes)
	}
}

func (a *App) names() []string {
	names := make([]string, 0, len(a.Commands))
	for n := range a.Commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ParseInterspersed parses flags wherever they stand among the positional
// arguments, which the flag package alone leaves unparsed after the first one;
// "--" ends flags, and stays among the arguments returned when keepDash is set.
func ParseInterspersed(fs *flag.FlagSet, args []string, keepDash bool) ([]string, error) {
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

// Strings is a repeatable string flag.
type Strings []string

func (m *Strings) String() string     { return strings.Join(*m, ",") }
func (m *Strings) Set(v string) error { *m = append(*m, v); return nil }

// IsSet reports whether fs has a boolean flag name set to true.
func IsSet(fs *flag.FlagSet, name string) bool { return IsValue(fs, name, "true") }

// IsValue reports whether fs has a flag name whose value is value.
func IsValue(fs *flag.FlagSet, name, value string) bool {
	f := fs.Lookup(name)
	return f != nil && f.Value.String() == value
}
