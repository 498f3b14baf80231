package wsreplay_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/internal/testing/wstest"
	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/wire"
	"github.com/codexrec/codexrec/wsreplay"
)

// TestFixturesServeRealPaths serves the committed ws captures over ws:// and unix://
// to a client that sends no cwd: no path placeholder reaches it, and every cwd,
// codexHome and path it receives is an absolute path that exists or lies under the
// replay's cwd or CODEX_HOME.
func TestFixturesServeRealPaths(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "fixtures", "hermetic", "*", "ws", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no committed ws captures: %v", err)
	}
	codexHome := t.TempDir()
	t.Setenv("CODEX_HOME", codexHome)
	for _, file := range files {
		for _, scheme := range []string{"ws", "unix"} {
			name, _ := filepath.Rel(filepath.Join("..", "fixtures", "hermetic"), file)
			t.Run(name+"/"+scheme, func(t *testing.T) {
				cwd := t.TempDir()
				srv := &wsreplay.Server{Recordings: []string{file}, Configure: func(r *replay.Server) {
					r.Mode = replay.ModeMethod // the live client leaves cwd out
					r.Paths.Cwd = cwd
				}}
				c := wstest.MustDial(t, serve(t, srv, scheme), nil)
				from := 0
				for _, line := range recorded(t, file, wire.ClientToServer) {
					m := wire.Classify(line)
					if m.Kind != wire.KindRequest && m.Kind != wire.KindNotification {
						continue // Wait answers server requests
					}
					c.Send(withoutCwd(t, wire.Content(line)))
					if m.Kind == wire.KindRequest {
						_, from = c.Wait(from, "the answer to "+m.Method, wstest.Response(string(m.ID)))
					}
				}
				want := len(recorded(t, file, wire.ServerToClient))
				deadline := time.Now().Add(wstest.Timeout)
				for len(c.Got()) < want && time.Now().Before(deadline) {
					time.Sleep(10 * time.Millisecond)
				}
				c.Conn.Close()
				if r := waitResults(t, srv, 1); r[0].Err != nil {
					t.Fatal(r[0].Err)
				}
				got := c.Got()
				if len(got) != want {
					t.Fatalf("got %d messages, want the recording's %d", len(got), want)
				}
				seen := 0
				for i, msg := range got {
					for _, p := range []string{"<cwd>", "<codex-home>", "<home>", "<tmp>"} {
						if strings.Contains(string(msg), p) {
							t.Fatalf("message %d still holds %s: %.300s", i+1, p, msg)
						}
					}
					for _, path := range []string{"result.codexHome", "result.cwd", "params.thread.cwd", "result.thread.cwd", "result.thread.path", "params.thread.path"} {
						v := gjson.GetBytes(msg, path)
						if v.Type != gjson.String {
							continue
						}
						seen++
						p := v.Str
						if !filepath.IsAbs(p) {
							t.Errorf("message %d %s: %q is not absolute", i+1, path, p)
						} else if _, err := os.Stat(p); err != nil && !under(p, cwd) && !under(p, codexHome) {
							t.Errorf("message %d %s: %q neither exists nor lies under the replay's cwd or CODEX_HOME", i+1, path, p)
						}
					}
				}
				if seen < 3 {
					t.Errorf("checked only %d path fields", seen)
				}
			})
		}
	}
}

func under(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// withoutCwd is a recorded client message with every "cwd" member removed.
func withoutCwd(t *testing.T, msg []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(msg, &v); err != nil {
		t.Fatal(err)
	}
	var strip func(any)
	strip = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			delete(v, "cwd")
			for _, x := range v {
				strip(x)
			}
		case []any:
			for _, x := range v {
				strip(x)
			}
		}
	}
	strip(v)
	b, _ := json.Marshal(v)
	return string(b)
}
