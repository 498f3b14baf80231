package main_test

import (
	"path/filepath"
	"testing"

	"github.com/codexrec/codexrec/internal/testing/codextest"
	"github.com/codexrec/codexrec/recorder"
)

// capture --transport ws and unix drive the same scenarios over WebSocket (through
// the relay, to codex on a private unix socket): the recordings equal the stdio
// captures under codexrec diff (--ignore-moves: the server orders asynchronous
// notifications differently from run to run, whatever the transport), for both pinned versions, including a scenario
// with a restart (two connections to two server lifetimes, numbered as one session)
// and one with an approval request.
func TestCaptureTransports(t *testing.T) {
	for _, tt := range []struct{ v, sc string }{
		{"0.163.0", "plain"}, {"0.171.0", "plain"}, {"0.171.0", "resume"}, {"0.171.0", "approval-accept"},
	} {
		v, sc := tt.v, tt.sc
		codextest.Binary(t, v)
		{
			t.Run(v+"/"+sc, func(t *testing.T) {
				dir := t.TempDir()
				out := map[string]string{}
				for _, tr := range []string{"stdio", "ws", "unix"} {
					out[tr] = filepath.Join(dir, tr+".jsonl")
					r := runCodexrec(t, "", nil, "capture", "--scenario", sc, "--codex-version", v, "--transport", tr, "-o", out[tr])
					if r.code != 0 {
						t.Fatalf("capture --transport %s: exit %d\n%s", tr, r.code, r.stderr)
					}
				}
				for _, tr := range []string{"ws", "unix"} {
					rec, err := recorder.ReadFile(out[tr])
					if err != nil {
						t.Fatal(err)
					}
					if rec.Header.Socket == nil || rec.Header.Socket.Transport != tr || rec.Header.CodexVersion != v {
						t.Errorf("%s header %+v", tr, rec.Header)
					}
					for i, e := range rec.Frames() {
						if e.Seq != int64(i+1) {
							t.Fatalf("%s: frame %d has seq %d", tr, i+1, e.Seq)
						}
					}
					if r := runCodexrec(t, "", nil, "diff", "--ignore-moves", out["stdio"], out[tr]); r.code != 0 {
						t.Errorf("diff stdio %s: exit %d\n%s%s", tr, r.code, r.stdout, r.stderr)
					}
				}
			})
		}
	}
}
