package wsproxy_test

import (
	"testing"

	"github.com/codexrec/codexrec/wsproxy"
)

// A parsed URL prints as a URL that parses to the same address.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"ws://127.0.0.1:4500", "ws://[::1]:0/a?x=1", "unix:///tmp/x.sock", "unix://rel/x", "ws://h:1/", "unix://", "ws://:0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := wsproxy.ParseURL(s)
		if err != nil {
			return
		}
		b, err := wsproxy.ParseURL(a.String())
		if err != nil || b != a {
			t.Fatalf("ParseURL(%q) = %+v; its String %q parses to %+v, %v", s, a, a.String(), b, err)
		}
	})
}
