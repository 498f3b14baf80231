package replay_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/wire"
)

var pathPlaceholders = []string{"<cwd>", "<codex-home>", "<home>", "<tmp>"}

// withoutCwd is a recorded client line with every "cwd" member removed: a client
// (codex exec --remote) that lets the server choose its directory.
func withoutCwd(t *testing.T, line []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(line, &v); err != nil {
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
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// restoredPaths walks a recorded server message and the one served in parallel and
// returns, for every string the recording held a path placeholder in, the value
// served (by JSON pointer).
func restoredPaths(recorded, served any, ptr string, out map[string]string) {
	switch r := recorded.(type) {
	case map[string]any:
		s, _ := served.(map[string]any)
		for k, rv := range r {
			restoredPaths(rv, s[k], ptr+"/"+k, out)
		}
	case []any:
		s, _ := served.([]any)
		for i, rv := range r {
			var sv any
			if i < len(s) {
				sv = s[i]
			}
			restoredPaths(rv, sv, ptr+"/"+itoa(i), out)
		}
	case string:
		for _, p := range pathPlaceholders {
			if strings.HasPrefix(r, p) {
				s, _ := served.(string)
				out[ptr] = s
			}
		}
	}
}

// TestFixturesServeRealPaths replays every committed fixture (every segment, stdio
// of the stdio captures) to a client that sends no cwd: every field the recording holds a
// path placeholder in is served as an absolute path of the replay's environment that
// exists or lies under the replay's cwd or CODEX_HOME (a rollout file), and no path
// placeholder reaches the client.
func TestFixturesServeRealPaths(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "fixtures", "hermetic", "*", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// (The ws captures, whose frames carry no newline, are served over WebSocket in
	// wsreplay's TestFixturesServeRealPaths.)
	if len(files) < 10 {
		t.Fatalf("found only %d committed fixtures", len(files))
	}
	codexHome := t.TempDir()
	t.Setenv("CODEX_HOME", codexHome)
	seen := 0
	for _, file := range files {
		segments := load(t, file, 1).Segments
		for seg := 1; seg <= segments; seg++ {
			name, _ := filepath.Rel(filepath.Join("..", "fixtures", "hermetic"), file)
			t.Run(name+"/"+itoa(seg), func(t *testing.T) {
				cwd := t.TempDir()
				sc := load(t, file, seg)
				// The live client sends no cwd where the recorded one did: method
				// matching lets it through, so what is checked is what it receives.
				srv := &replay.Server{Script: sc, Mode: replay.ModeMethod, Paths: replay.Paths{Cwd: cwd}}
				s := serve(t, srv)
				var got []string
				for _, cf := range sc.Client {
					if k := cf.Msg.Kind; k == wire.KindResponse || k == wire.KindError {
						id := string(cf.Msg.ID)
						got = append(got, s.until("server request "+id, func(l string) bool {
							return gjson.Get(l, "id").Raw == id && gjson.Get(l, "method").Exists()
						})...)
					}
					s.send(withoutCwd(t, wire.Content(cf.Line)))
					if cf.Msg.Kind == wire.KindRequest {
						got = append(got, s.response(string(cf.Msg.ID))...)
					}
				}
				if err := s.finish(); err != nil {
					t.Fatalf("%v\n%s", err, s.log)
				}
				got = append(got, s.rest()...)
				want := s2c(sc)
				if len(got) != len(want) {
					t.Fatalf("got %d lines, want the recording's %d", len(got), len(want))
				}
				for i := range got {
					for _, p := range pathPlaceholders {
						if strings.Contains(got[i], p) {
							t.Fatalf("line %d still holds %s: %s", i+1, p, shortLine(got[i]))
						}
					}
					var rv, sv any
					if json.Unmarshal([]byte(want[i]), &rv) != nil {
						continue
					}
					if err := json.Unmarshal([]byte(got[i]), &sv); err != nil {
						t.Fatalf("line %d: %v", i+1, err)
					}
					paths := map[string]string{}
					restoredPaths(rv, sv, "", paths)
					for ptr, p := range paths {
						seen++
						if !filepath.IsAbs(p) {
							t.Errorf("line %d %s: %q is not absolute", i+1, ptr, p)
							continue
						}
						if _, err := os.Stat(p); err != nil && !under(p, cwd) && !under(p, codexHome) {
							t.Errorf("line %d %s: %q neither exists nor lies under the replay's cwd %s or CODEX_HOME", i+1, ptr, p, cwd)
						}
					}
				}
			})
		}
	}
	if seen < 100 {
		t.Errorf("checked only %d path fields across %d fixtures", seen, len(files))
	}
}

// under reports whether path lies under dir.
func under(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// TestPrivateCodexHome: without CODEX_HOME, <codex-home> is served as a private
// directory that exists while the replay serves and is gone once it returns.
func TestPrivateCodexHome(t *testing.T) {
	t.Setenv("CODEX_HOME", "")
	sc := load(t, fixture("0.171.0", "plain"), 0)
	s := serve(t, &replay.Server{Script: sc})
	s.send(strings.TrimSuffix(string(sc.Client[0].Line), "\n"))
	resp := s.response(string(sc.Client[0].Msg.ID))
	home := gjson.Get(resp[len(resp)-1], "result.codexHome").Str
	if !filepath.IsAbs(home) {
		t.Fatalf("codexHome %q is not absolute", home)
	}
	if fi, err := os.Stat(home); err != nil || !fi.IsDir() {
		t.Fatalf("codexHome %q while serving: %v", home, err)
	}
	s.finish()
	s.rest()
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Fatalf("codexHome %q after Serve returned: %v, want it removed", home, err)
	}
}
