// Command codexrec records, validates, replays, captures and diffs sessions of
// OpenAI's codex app-server (JSON-RPC over stdio). Each subcommand lives in its own
// file and registers itself in app, which internal/cli runs: dispatch, and errors
// turned into exit codes.
package main

import (
	"os"

	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/shim"
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

// app is codexrec for internal/cli: each command file adds its command (register).
var app = &cli.App{Name: "codexrec", Version: Version, Commands: map[string]*cli.Command{}, UsageCode: exitUsage,
	Summary:    "record, validate, replay, capture and diff codex app-server sessions",
	ExitCodes:  "exit codes: 0 ok, 1 findings or differences, 2 usage or I/O error, 3 leak guard refused",
	RevealFlag: "reveal", RevealUsage: revealUsage, Stdout: stdoutOf, Config: settings}

func register(c *cli.Command) {
	if _, dup := app.Commands[c.Name]; dup {
		panic("codexrec: command registered twice: " + c.Name)
	}
	app.Commands[c.Name] = c
}

func main() {
	std := cli.IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}
	if shim.IsStandin(os.Args[0]) { // a symlink named codex (see shim.go)
		os.Exit(app.Exit(shimMain(os.Args[0], &shimConfig{}, os.Args[1:], std), "", std.Err))
	}
	stop := cli.StartProfiles("CODEXREC_", cli.Prefixed(os.Stderr, "codexrec: "))
	code := app.Main(os.Args[1:], std)
	stop()
	os.Exit(code)
}
