package wsproxy_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/internal/testing/wstest"
	"github.com/codexrec/codexrec/wsproxy"
)

func TestParseURL(t *testing.T) {
	t.Setenv("CODEX_HOME", "/h")
	for _, tt := range []struct {
		in   string
		want wsproxy.Addr
		err  bool
	}{
		{"ws://127.0.0.1:4500", wsproxy.Addr{Scheme: "ws", Host: "127.0.0.1:4500"}, false},
		{"ws://[::1]:0/rpc", wsproxy.Addr{Scheme: "ws", Host: "[::1]:0", Path: "/rpc"}, false},
		{"unix:///tmp/x.sock", wsproxy.Addr{Scheme: "unix", Path: "/tmp/x.sock"}, false},
		{"unix://", wsproxy.Addr{Scheme: "unix", Path: "/h/app-server-control/app-server-control.sock"}, false},
		{"ws://127.0.0.1", wsproxy.Addr{}, true},
		{"http://127.0.0.1:1", wsproxy.Addr{}, true},
		{"stdio://", wsproxy.Addr{}, true},
	} {
		got, err := wsproxy.ParseURL(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseURL(%q) = %+v, %v", tt.in, got, err)
		}
	}
}

func TestListenFlag(t *testing.T) {
	for _, tt := range []struct {
		args       []string
		listen     string
		withoutArg []string
	}{
		{[]string{"app-server"}, "", []string{"app-server"}},
		{[]string{"app-server", "--listen", "ws://127.0.0.1:1", "-c", "x"}, "ws://127.0.0.1:1", []string{"app-server", "-c", "x"}},
		{[]string{"app-server", "--listen=unix://"}, "unix://", []string{"app-server"}},
		{[]string{"app-server", "--", "--listen", "x"}, "", []string{"app-server", "--", "--listen", "x"}},
	} {
		if got := wsproxy.ListenFlag(tt.args); got != tt.listen {
			t.Errorf("ListenFlag(%q) = %q", tt.args, got)
		}
		if got := wsproxy.WithoutListen(tt.args); !reflect.DeepEqual(got, tt.withoutArg) {
			t.Errorf("WithoutListen(%q) = %q", tt.args, got)
		}
	}
}

// Listen refuses a path that exists rather than replacing it, and makes its socket
// 0600.
func TestListenUnix(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.sock")
	ln, _, err := wsproxy.Listen(wsproxy.Addr{Scheme: "unix", Path: p})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v (%v)", fi.Mode(), err)
	}
	if _, _, err := wsproxy.Listen(wsproxy.Addr{Scheme: "unix", Path: p}); err == nil {
		t.Error("a second Listen on the same path succeeded")
	}
	ln.Close()
	if _, err := os.Lstat(p); !os.IsNotExist(err) {
		t.Errorf("the socket is still there after Close: %v", err)
	}
}

// Banner is byte for byte what codex prints when it listens on ws://.
func TestBannerIsCodexs(t *testing.T) {
	for _, v := range []string{"0.163.0", "0.171.0"} {
		codex := wstest.Prepare(t, v, wstest.TurnModel())
		codex.Start(t, "ws")
		want := wsproxy.Banner(codex.Addr.String())
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(codex.Stderr.String(), want) {
			if time.Now().After(deadline) {
				t.Fatalf("codex %s's stderr lacks the banner %q:\n%s", v, want, codex.Stderr)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
