// Command codexrec records, validates, replays, captures and diffs sessions of
// OpenAI's codex app-server (JSON-RPC over stdio). Each subcommand lives in its own
// file and registers itself; main gives the table to internal/cli, which
// dispatches and turns errors into exit codes.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/codexrec/codexrec/internal/cli"
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

// command is one subcommand (see cli.Command for each field).
type command struct {
	name, args, summary string
	flags               func(fs *flag.FlagSet) any
	run                 func(cfg any, args []string, io stdio) error
	interspersed        bool // flags may follow the arguments ("--" ends them)
	dashCommand         bool // "--" stays among run's arguments: a command line follows
}

// stdio is where a command reads and writes.
type stdio struct {
	in       io.Reader
	out, err io.Writer
	reveal   bool // --reveal: recorded values unmasked
}

var commands = map[string]*command{}

// subcommands are the commands whose first argument names a subcommand.
var subcommands = map[string]map[string]*command{"schema": schemaCommands, "scenario": scenarioCommands, "codex": codexCommands}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("codexrec: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

// exitError carries an exit code chosen by a command; err nil when the command
// already reported everything.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }
func (e *exitError) ExitCode() int { return e.code }

type usageError = cli.UsageError

func usagef(format string, a ...any) error { return cli.Usagef(format, a...) }

// multiFlag is a repeatable string flag.
type multiFlag = cli.Strings

// app is codexrec for internal/cli, built in main once every command registered.
var app *cli.App

func main() {
	app = &cli.App{Name: "codexrec", Version: Version, Commands: cliCommands(commands), UsageCode: exitUsage,
		Summary:    "record, validate, replay, capture and diff codex app-server sessions",
		ExitCodes:  "exit codes: 0 ok, 1 findings or differences, 2 usage or I/O error, 3 leak guard refused",
		RevealFlag: "reveal", RevealUsage: revealUsage, Stdout: stdoutOf, Config: settings}
	std := cli.IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}
	if shimName(os.Args[0]) { // a symlink named codex (see shim.go)
		os.Exit(app.Exit(shimMain(os.Args[0], &shimConfig{}, os.Args[1:], fromCLI(std)), "", std.Err))
	}
	stop := cli.StartProfiles("CODEXREC_", cli.Prefixed(os.Stderr, "codexrec: "))
	code := app.Main(os.Args[1:], std)
	stop()
	os.Exit(code)
}

// cli is c as internal/cli runs it; a command without run dispatches to its
// subcommands.
func (c *command) cli() *cli.Command {
	x := &cli.Command{Name: c.name, Args: c.args, Summary: c.summary, Flags: c.flags,
		Interspersed: c.interspersed, DashCommand: c.dashCommand, Config: configCommands[c.name]}
	if c.run != nil {
		x.Run = func(cfg any, args []string, s cli.IO) error { return c.run(cfg, args, fromCLI(s)) }
	}
	if subs := subcommands[c.name]; subs != nil {
		x.Subcommands = cliCommands(subs)
	}
	return x
}

func cliCommands(cs map[string]*command) map[string]*cli.Command {
	m := map[string]*cli.Command{}
	for n, c := range cs {
		m[n] = c.cli()
	}
	return m
}

func fromCLI(s cli.IO) stdio { return stdio{s.In, s.Out, s.Err, s.Reveal} }
func (s stdio) cli() cli.IO  { return cli.IO{In: s.in, Out: s.out, Err: s.err, Reveal: s.reveal} }
