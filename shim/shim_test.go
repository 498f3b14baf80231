package shim_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codexrec/codexrec/shim"
)

// TestDecide: every mode, with the recording there or not, in CI or not.
func TestDecide(t *testing.T) {
	type want struct {
		action shim.Action
		err    string // part of the error, "" for none
	}
	for _, tc := range []struct {
		mode       shim.Mode
		exists, ci bool
		want       want
	}{
		{shim.ModeRecord, false, false, want{shim.Record, ""}},
		{shim.ModeRecord, true, false, want{shim.Record, ""}},
		{shim.ModeRecord, false, true, want{shim.Record, ""}},
		{shim.ModeRecord, true, true, want{shim.Record, ""}},
		{shim.ModeReplay, false, false, want{0, "no recording r.jsonl (mode replay"}},
		{shim.ModeReplay, true, false, want{shim.Replay, ""}},
		{shim.ModeReplay, false, true, want{0, "no recording r.jsonl (mode replay"}},
		{shim.ModeReplay, true, true, want{shim.Replay, ""}},
		{shim.ModeAuto, false, false, want{shim.Record, ""}},
		{shim.ModeAuto, true, false, want{shim.Replay, ""}},
		{shim.ModeAuto, false, true, want{0, "no recording r.jsonl (mode auto never records when CI is set"}},
		{shim.ModeAuto, true, true, want{shim.Replay, ""}},
		{shim.ModePassthrough, false, false, want{shim.Passthrough, ""}},
		{shim.ModePassthrough, true, false, want{shim.Passthrough, ""}},
		{shim.ModePassthrough, false, true, want{shim.Passthrough, ""}},
		{shim.ModePassthrough, true, true, want{shim.Passthrough, ""}},
	} {
		a, err := tc.mode.Decide("r.jsonl", tc.exists, tc.ci)
		name := tc.mode.String()
		switch {
		case tc.want.err == "" && err != nil:
			t.Errorf("%s exists=%v ci=%v: %v", name, tc.exists, tc.ci, err)
		case tc.want.err != "" && (err == nil || !strings.Contains(err.Error(), tc.want.err) || !errors.Is(err, shim.ErrNoRecording)):
			t.Errorf("%s exists=%v ci=%v: error %v, want one with %q wrapping ErrNoRecording", name, tc.exists, tc.ci, err, tc.want.err)
		case err == nil && a != tc.want.action:
			t.Errorf("%s exists=%v ci=%v: %s, want %s", name, tc.exists, tc.ci, a, tc.want.action)
		}
	}
}

func TestParseModeAndCI(t *testing.T) {
	for _, n := range []string{"record", "replay", "auto", "passthrough"} {
		m, err := shim.ParseMode(n)
		if err != nil || m.String() != n {
			t.Errorf("ParseMode(%q) = %v, %v", n, m, err)
		}
	}
	if m, err := shim.ParseMode(""); err != nil || m != shim.ModeAuto {
		t.Errorf(`ParseMode("") = %v, %v; want auto`, m, err)
	}
	if _, err := shim.ParseMode("once"); err == nil {
		t.Error("ParseMode(once) accepted")
	}
	for v, want := range map[string]bool{"": false, "0": false, "false": false, "true": true, "1": true, "yes": true} {
		if got := shim.IsCI(func(string) string { return v }); got != want {
			t.Errorf("CI=%q: %v, want %v", v, got, want)
		}
	}
}

// TestNamer: sessions are numbered per run in order, by method; a given name gets a
// suffix from its second session on; another run starts again; idle runs are
// forgotten; concurrent sessions never share a number.
func TestNamer(t *testing.T) {
	dir := t.TempDir()
	next := func(n *shim.Namer, method string) string {
		t.Helper()
		p, err := n.Next(method)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Dir(p) != dir {
			t.Fatalf("%s is not in %s", p, dir)
		}
		return filepath.Base(p)
	}
	a := &shim.Namer{Dir: dir, Run: "a"}
	b := &shim.Namer{Dir: dir, Run: "b"}
	named := &shim.Namer{Dir: dir, Run: "a", Name: "TestTurn/approval accepted"}
	for i, tc := range []struct {
		n      *shim.Namer
		method string
		want   string
	}{
		{a, "initialize", "001-initialize.jsonl"},
		{a, "initialize", "002-initialize.jsonl"},
		{b, "initialize", "001-initialize.jsonl"},
		{a, "thread/start", "003-thread-start.jsonl"},
		{a, "", "004-session.jsonl"},
		{named, "initialize", "TestTurn_approval_accepted.jsonl"},
		{named, "initialize", "TestTurn_approval_accepted-2.jsonl"},
		{a, "initialize", "005-initialize.jsonl"},
	} {
		if got := next(tc.n, tc.method); got != tc.want {
			t.Errorf("session %d: %s, want %s", i+1, got, tc.want)
		}
	}
	later := &shim.Namer{Dir: dir, Run: "a", Now: func() time.Time { return time.Now().Add(25 * time.Hour) }}
	if got := next(later, "initialize"); got != "001-initialize.jsonl" {
		t.Errorf("a run idle for a day: %s, want it counted afresh", got)
	}
	if _, err := (&shim.Namer{Dir: dir, Run: "a", Name: ".."}).Next("initialize"); err == nil {
		t.Error(`name ".." accepted`)
	}

	par := t.TempDir()
	var mu sync.Mutex
	var got []string
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := (&shim.Namer{Dir: par, Run: "p"}).Next("initialize")
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			got = append(got, filepath.Base(p))
			mu.Unlock()
		}()
	}
	wg.Wait()
	sort.Strings(got)
	for i, g := range got {
		if want := filepathName(i + 1); g != want {
			t.Fatalf("concurrent sessions got %v", got)
		}
	}
	if _, err := os.Stat(filepath.Join(par, ".codexrec-runs.lock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock file is left behind: %v", err)
	}
}

func filepathName(n int) string { return fmt.Sprintf("%03d-initialize.jsonl", n) }

// TestIsSession: which codex command lines a shim records or replays, on stdio
// (IsSession) or on a socket (SocketListen).
func TestIsSession(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		want   bool
		listen string
	}{
		{[]string{"app-server"}, true, ""},
		{[]string{"app-server", "-c", "model=x", "--listen", "stdio://"}, true, ""},
		{[]string{"-c", "model_provider=fake", "app-server"}, true, ""},
		{[]string{"app-server", "--listen", "ws://127.0.0.1:0"}, false, "ws://127.0.0.1:0"},
		{[]string{"-c", "x=1", "app-server", "-c", "y=2", "--listen", "ws://127.0.0.1:4500"}, false, "ws://127.0.0.1:4500"},
		{[]string{"app-server", "--listen=unix://"}, false, "unix://"},
		{[]string{"app-server", "--listen", "unix:///tmp/x.sock"}, false, "unix:///tmp/x.sock"},
		{[]string{"app-server", "--listen", "off"}, false, ""},
		{[]string{"app-server", "--listen", "ws://127.0.0.1:0", "--listen", "stdio://"}, false, ""},
		{[]string{"app-server", "--listen", "ws://127.0.0.1:0", "--help"}, false, ""},
		{[]string{"app-server", "generate-json-schema", "--out", "d"}, false, ""},
		{[]string{"app-server", "--help"}, false, ""},
		{[]string{"--version"}, false, ""},
		{[]string{"exec", "app-server"}, false, ""},
		{[]string{"exec", "--listen", "ws://127.0.0.1:0"}, false, ""},
		{[]string{"-c", "app-server"}, false, ""},
		{[]string{}, false, ""},
	} {
		if got := shim.IsSession(tc.args); got != tc.want {
			t.Errorf("IsSession(%q) = %v, want %v", tc.args, got, tc.want)
		}
		if got := shim.SocketListen(tc.args); got != tc.listen {
			t.Errorf("SocketListen(%q) = %q, want %q", tc.args, got, tc.listen)
		}
	}
}

// TestIsStandin: a program named codex, wherever it is, stands in for codex.
func TestIsStandin(t *testing.T) {
	for argv0, want := range map[string]bool{"codex": true, "/tmp/bin/codex": true, `codex.exe`: true, "./codex": true,
		"codexrec": false, "/usr/bin/codex-real": false, "codex/": true, "": false} {
		if got := shim.IsStandin(argv0); got != want {
			t.Errorf("IsStandin(%q) = %v, want %v", argv0, got, want)
		}
	}
}
