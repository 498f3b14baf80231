package main_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/internal/testing/wstest"
	"github.com/codexrec/codexrec/wsproxy"
	"github.com/codexrec/codexrec/wsrecord"
)

// `codexrec replay --listen` over ws:// and unix://: a client of another library
// completes the recorded turn (exit 0 after --connections 1); a client that sends
// something else makes it exit 1.
func TestReplayListen(t *testing.T) {
	codex := wstest.Prepare(t, "0.171.0", wstest.TurnModel())
	dir := t.TempDir()
	rec := &wsrecord.Recorder{Dir: dir}
	run, err := wsrecord.Start(wsrecord.Options{Listen: "ws://127.0.0.1:0", Command: codex.Args, Env: codex.Env, Dir: codex.Work}, rec)
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := wsproxy.ParseURL(run.URL)
	c := wstest.MustDial(t, addr, nil)
	c.Turn(codex.Work)
	c.Conn.Close()
	for deadline := time.Now().Add(20 * time.Second); len(rec.Results()) == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if err := run.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, scheme := range []string{"ws", "unix"} {
		t.Run(scheme, func(t *testing.T) {
			listen := "ws://127.0.0.1:0"
			if scheme == "unix" {
				listen = "unix://" + filepath.Join(t.TempDir(), "replay.sock")
			}
			for _, tt := range []struct {
				name string
				want int
				turn bool
			}{{"turn", 0, true}, {"mismatch", 1, false}} {
				urlFile := filepath.Join(t.TempDir(), "url")
				cmd, stderr := startCodexrec(t, "", nil, "replay", "--listen", listen, "--url-file", urlFile, "--connections", "1", dir)
				a, err := wsproxy.ParseURL(strings.TrimSpace(string(waitFile(t, urlFile, stderr))))
				if err != nil {
					t.Fatal(err)
				}
				client := wstest.MustDial(t, a, nil)
				if tt.turn {
					client.Turn(codex.Work)
				} else {
					client.Send(`{"id":1,"method":"thread/list","params":{}}`)
					client.Wait(0, "the replay's error", wstest.Response("1"))
				}
				client.Conn.Close()
				if code := exitCode(t, cmd, stderr); code != tt.want {
					t.Errorf("%s: exit %d, want %d:\n%s", tt.name, code, tt.want, stderr)
				}
			}
		})
	}
}
