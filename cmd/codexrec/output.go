package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/codexrec/codexrec/dropin"
	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/setting"
)

// wireStdout names the commands whose stdout is the wire (a client's server), which
// the output layer never touches.
var wireStdout = map[string]bool{"record": true, "replay": true, "shim": true, "mcp-fixture": true}

// revealUsage is the global --reveal flag's help.
const revealUsage = "print recorded values as they are (secret-shaped values unmasked, on the terminal and in HTML pages); control characters are escaped all the same"

// stdoutOf is how the output layer treats c's stdout: data (values as recorded,
// made safe) under --json, --jsonl and -o -, and for view and scenario
// from-recording; a recording's exact bytes under -o - of the commands that write
// one (exactStdout); colour forced by --color always.
func stdoutOf(c *cli.Command, fs *flag.FlagSet) cli.Stdout {
	dash := cli.IsValue(fs, "o", "-")
	data := cli.IsSet(fs, "json") || cli.IsSet(fs, "jsonl") || dash || c.Name == "view" || c.Name == "scenario from-recording"
	return cli.Stdout{Wire: wireStdout[c.Name], Data: data, Exact: dash && exactStdout[c.Name], Color: cli.IsValue(fs, "color", "always")}
}

// exactStdout names the commands whose -o - is a recording, written to a pipe or
// a file byte for byte as to -o FILE.
var exactStdout = map[string]bool{"sanitize": true, "capture": true, "rerun": true}

// verdict is a report's exit: an error 2 with its message, input that could not be
// read 2 (each said already), findings 1.
func verdict(err error, unread, findings bool) error {
	switch {
	case err != nil:
		return cli.ExitWith(exitUsage, err)
	case unread:
		return cli.ExitWith(exitUsage, nil)
	case findings:
		return cli.ExitWith(exitFindings, nil)
	}
	return nil
}

// warnProblems prints a one-line warning about a recording's structural problems
// (a torn last line, seq out of order, ...) once it has been read; check reports
// them as findings instead.
func warnProblems(stderr io.Writer, cmd, name string, problems []recorder.Problem) {
	if w := recorder.Warning(name, problems); w != "" {
		fmt.Fprintf(stderr, "codexrec %s: %s\n", cmd, sanitize.MaskText(w))
	}
}

// The exit codes of the errors of the libraries that write recordings (anything
// else is usage or I/O): a recording in the way says whether --force helps
// (createCodes), the leak guard's refusal or redaction is exitLeak (leakCodes),
// a replay that did not match is exitFindings (runnerCodes, for record, replay
// and drop-in sessions, with both).
var (
	createCodes = cli.Codes{
		{Match: cli.Is(recorder.ErrExists), Code: exitUsage, Hint: " (--force replaces it)"},
		{Match: cli.Is(recorder.ErrNotReplaceable), Code: exitUsage, Hint: " (not even with --force)"},
	}
	leakCodes = cli.Codes{
		{Match: cli.Found[*sanitize.LeakError](), Code: exitLeak, Hint: "\nif a finding is a known false positive, allow it with --allow REGEX (matched against the flagged value) or --allow-file FILE (one REGEX per line)"},
		{Match: cli.Found[*sanitize.RedactedError](), Code: exitLeak}, // published, but the guard had to redact
	}
	runnerCodes = append(append(cli.Codes{
		{Match: cli.As[*dropin.ConnError](), Code: exitUsage},
		{Match: cli.Is(replay.ErrNoMatch, replay.ErrUnused), Code: exitFindings},
		{Match: cli.Is(dropin.ErrSocketFile), Code: exitUsage, Hint: ": set CODEXREC_DIR instead"},
	}, createCodes...), leakCodes...)
	writeCodes = append(append(cli.Codes{}, createCodes...), leakCodes...)
)

// exitFor is the exit status of an error from the libraries that write
// recordings: a bad sanitizer setting names its flag, then writeCodes.
func exitFor(err error) error {
	if errors.As(err, new(*setting.Error)) {
		return settingUsage(err, nil)
	}
	return writeCodes.Exit(err, exitUsage)
}

// runnerError is the exit status of a record, replay or drop-in run's error, with
// the flags that would change it: a bad stage or staleness setting names its flag
// (a stale recording refused exits 1), the recorded server's exit status is the
// session's, then runnerCodes.
func runnerError(err error) error {
	var se *dropin.StagesError
	var xe *dropin.ExitError
	switch {
	case err == nil || cli.Decided(err):
		return err
	case staleError(err) != nil:
		return staleError(err)
	case errors.As(err, &se):
		return settingUsage(se.Err, nil)
	case errors.As(err, &xe) && xe.Err == nil:
		return cli.ExitWith(xe.Code, nil)
	case errors.As(err, &xe) && xe.Code > 0:
		return cli.ExitWith(xe.Code, err)
	}
	return runnerCodes.Exit(err, exitUsage)
}

// settingFlags name the flag of each library setting a *setting.Error names
// (the Options fields of sanitize, dropin, replay, check and upgrade).
var settingFlags = map[string]string{"SecretFiles": "--secret-file", "Maps": "--map", "AllowFiles": "--allow-file",
	"Listen": "--listen", "Upstream": "--upstream", "URLFile": "--url-file", "MemoryBudget": "--memory-budget", "Segment": "--segment",
	"Loop": "--loop", "Token": "--ws-token-file", "Connections": "--connections", "Command": "a command", "Mode": "--mode",
	"Match": "--match", "Ignore": "--ignore", "MatchOnly": "--match-only", "Faults": "--fault", "Speed": "--speed", "Patience": "--patience",
	"Disable": "--disable", "Severity": "--severity", "From": "--from", "To": "--to", "Recordings": "recordings", "Scenarios": "--scenarios"}

// settingUsage is a usage error saying a refused library setting (*setting.Error)
// as its flags: hint's message when it has one for it (hint may be nil), else by
// its reason. Other errors pass.
func settingUsage(err error, hint func(*setting.Error) string) error {
	var se *setting.Error
	if !errors.As(err, &se) {
		return err
	}
	if hint != nil {
		if h := hint(se); h != "" {
			return cli.Usagef("%s", h)
		}
	}
	flag, with := cmp.Or(settingFlags[se.Setting], se.Setting), cmp.Or(settingFlags[se.With], se.With)
	switch {
	case errors.Is(se, setting.ErrNeeds) && se.With == "Listen":
		return cli.Usagef("%s needs %s ws://HOST:PORT or unix://PATH", flag, with)
	case errors.Is(se, setting.ErrNeeds):
		return cli.Usagef("%s needs %s", flag, with)
	case errors.Is(se, setting.ErrExcludes):
		return cli.Usagef("%s and %s exclude each other", flag, with)
	case errors.Is(se, setting.ErrRequired):
		return cli.Usagef("%s is required", flag)
	case errors.Is(se, setting.ErrNegative):
		return cli.Usagef("%s %s: want 0 or more", flag, se.Value)
	case se.Value != "":
		return cli.Usagef("%s %s: %v", flag, se.Value, se.Err)
	}
	return cli.Usagef("%s: %v", flag, se.Err)
}

// dropinHint says the drop-in runners' refusals that need more than their flags:
// memoryMiB is --memory-budget's value.
func dropinHint(memoryMiB int64) func(*setting.Error) string {
	return func(se *setting.Error) string {
		switch {
		case errors.Is(se, setting.ErrNegative) && se.Setting == "MemoryBudget":
			return fmt.Sprintf("--memory-budget: %d MiB: want 0 (the default) or more", memoryMiB)
		case errors.Is(se, setting.ErrRange) && strings.HasPrefix(se.Value, "-"), errors.Is(se, setting.ErrRange) && se.Value == "0":
			return fmt.Sprintf("--segment %s: segments are numbered from 1", se.Value)
		case errors.Is(se, setting.ErrRange):
			return "--segment: a socket recording holds one connection; --listen serves segment 1"
		}
		return ""
	}
}
