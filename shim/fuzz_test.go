package shim_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/shim"
)

// FuzzIsSession: any command line is judged without panicking, only one that names
// app-server can be a session, and a socket session is never a stdio one.
func FuzzIsSession(f *testing.F) {
	for _, s := range []string{"app-server", "-c\x00x=1\x00app-server\x00--listen\x00stdio://", "app-server\x00--listen", "--\x00app-server", "app-server\x00--listen=ws://127.0.0.1:0", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Split(s, "\x00")
		if shim.IsSession(args) && !slices.Contains(args, "app-server") {
			t.Errorf("IsSession(%q) without app-server", args)
		}
		if l := shim.SocketListen(args); l != "" && (shim.IsSession(args) || !slices.Contains(args, "app-server") ||
			!strings.HasPrefix(l, "ws://") && !strings.HasPrefix(l, "unix://")) {
			t.Errorf("SocketListen(%q) = %q, IsSession %v", args, l, shim.IsSession(args))
		}
	})
}

// FuzzCleanName: a cleaned name is safe as one file name: no separator, not a dot
// name, the same length (one character per byte kept or replaced).
func FuzzCleanName(f *testing.F) {
	for _, s := range []string{"TestTurn/approval", "..", "a b", "ü", "../../etc/passwd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := shim.CleanName(s)
		if c == "" {
			return
		}
		if len(c) != len(s) || strings.ContainsAny(c, "/\\\x00 ") || strings.Trim(c, ".") == "" {
			t.Errorf("CleanName(%q) = %q", s, c)
		}
	})
}
