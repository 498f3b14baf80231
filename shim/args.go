package shim

import "strings"

// valueFlags are codex's global flags that take the next argument as their value.
var valueFlags = map[string]bool{
	"-c": true, "--config": true, "-m": true, "--model": true, "-p": true, "--profile": true,
	"-C": true, "--cd": true, "-s": true, "--sandbox": true, "-a": true, "--ask-for-approval": true,
	"-i": true, "--image": true, "--enable": true, "--disable": true, "--local-provider": true,
	"--add-dir": true, "--remote": true,
}

// notSessions are app-server subcommands and flags that start no session.
var notSessions = map[string]bool{
	"generate-json-schema": true, "generate-ts": true, "daemon": true, "proxy": true, "help": true,
	"--help": true, "-h": true, "--version": true, "-V": true,
}

// IsSession reports whether codex's arguments start an app-server session on stdio,
// the one kind of invocation a shim records or replays: the subcommand app-server
// with no subcommand of its own, listening on stdio (the default, or stdio://).
func IsSession(args []string) bool {
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return false
		}
		if !strings.HasPrefix(a, "-") {
			break
		}
		if valueFlags[a] {
			i++
		}
	}
	if i >= len(args) || args[i] != "app-server" {
		return false
	}
	rest := args[i+1:]
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		if notSessions[a] {
			return false
		}
		listen, ok := strings.CutPrefix(a, "--listen=")
		if a == "--listen" && j+1 < len(rest) {
			listen, ok = rest[j+1], true
			j++
		}
		if ok && listen != "stdio://" && listen != "stdio" {
			return false
		}
		if valueFlags[a] {
			j++
		}
	}
	return true
}
