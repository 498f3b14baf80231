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
// the one kind of invocation a shim records or replays as a stream: the subcommand
// app-server with no subcommand of its own, listening on stdio (the default, or
// stdio://).
func IsSession(args []string) bool {
	listen, ok := appServerListen(args)
	return ok && (listen == "" || listen == "stdio://" || listen == "stdio")
}

// SocketListen returns the URL an app-server session listens on when codex's
// arguments start one on a socket (--listen ws://IP:PORT or unix://[PATH]), else "":
// a shim records or replays such a session's connections.
func SocketListen(args []string) string {
	listen, ok := appServerListen(args)
	if ok && (strings.HasPrefix(listen, "ws://") || strings.HasPrefix(listen, "unix://")) {
		return listen
	}
	return ""
}

// appServerListen reports whether args start an app-server session, and the value
// of its --listen ("" when there is none).
func appServerListen(args []string) (listen string, ok bool) {
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return "", false
		}
		if !strings.HasPrefix(a, "-") {
			break
		}
		if valueFlags[a] {
			i++
		}
	}
	if i >= len(args) || args[i] != "app-server" {
		return "", false
	}
	rest := args[i+1:]
	listens := 0
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		if notSessions[a] {
			return "", false
		}
		if v, found := strings.CutPrefix(a, "--listen="); found {
			listen = v
			listens++
		} else if a == "--listen" && j+1 < len(rest) {
			listen = rest[j+1]
			listens++
			j++
		}
		if valueFlags[a] {
			j++
		}
	}
	// codex refuses a second --listen itself.
	return listen, listens <= 1
}
