package main_test

import (
	"strings"
	"testing"
)

// TestServeCommandRefuses: a non-loopback address needs --allow-remote, and a
// directory that does not exist is a usage error; both before listening.
func TestServeCommandRefuses(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--listen", "0.0.0.0:0", t.TempDir()}, "not a loopback address"},
		{[]string{"serve", "--listen", ":0", t.TempDir()}, "not a loopback address"},
		{[]string{"serve", t.TempDir() + "/missing"}, "missing"},
	} {
		res := runCodexrec(t, "", nil, tc.args...)
		if res.code != 2 || !strings.HasPrefix(string(res.stderr), "codexrec serve: ") || !strings.Contains(string(res.stderr), tc.want) || len(res.stdout) != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tc.args, res.code, res.stdout, res.stderr)
		}
	}
}
