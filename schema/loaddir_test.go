package schema_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/codexrec/codexrec/schema"
)

// writeSet writes one set of a loaded version to dir, as generate-json-schema would.
func writeSet(t *testing.T, fsys fs.FS, dir string) {
	t.Helper()
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, p), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestLoadDir(t *testing.T) {
	emb, err := schema.Load("0.171.0")
	if err != nil {
		t.Fatal(err)
	}
	both := t.TempDir()
	writeSet(t, emb.FS(false), filepath.Join(both, "stable"))
	writeSet(t, emb.FS(true), filepath.Join(both, "experimental"))
	one := t.TempDir()
	writeSet(t, emb.FS(false), one)

	session := frames(initPlain, `c2s {"id":1,"method":"thread/increment_elicitation","params":{"threadId":"x"}}`,
		`c2s {"id":2,"method":"turn/start","params":{"input":[]}}`)
	for _, tc := range []struct {
		dir  string
		want string
	}{
		// Both sets: the experimental method is known, and flagged.
		{both, "[2 c2s thread/increment_elicitation experimental /method: thread/increment_elicitation is experimental and the client did not ask for experimentalApi in initialize 3 c2s turn/start invalid /params/threadId: missing required field \"threadId\"]"},
		// One (stable) set: it is simply unknown.
		{one, "[2 c2s thread/increment_elicitation unknown-method /method: codex (schema dir) has no client request \"thread/increment_elicitation\" 3 c2s turn/start invalid /params/threadId: missing required field \"threadId\"]"},
	} {
		set, err := schema.LoadDir(tc.dir, "")
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(checkAll(t, set, session)); got != tc.want {
			t.Errorf("LoadDir(%s):\n got %s\nwant %s", tc.dir, got, tc.want)
		}
	}
	if len(mustLoadDir(t, both).Methods()) != len(emb.Methods()) {
		t.Error("LoadDir of both sets has a different method table than the embedded set")
	}
	for _, bad := range []string{filepath.Join(both, "nope"), filepath.Join(both, "stable", "ClientRequest.json"), t.TempDir()} {
		if _, err := schema.LoadDir(bad, ""); err == nil {
			t.Errorf("LoadDir(%s) succeeded", bad)
		}
	}
}

func mustLoadDir(t *testing.T, dir string) *schema.Set {
	s, err := schema.LoadDir(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestOnlyExperimentalAllows: a message the stable set rejects but the experimental set
// accepts is an experimental finding, not invalid. No pinned version has such a
// difference on the client side today, so the stable set is doctored here (a fake:
// ThreadReadParams.includeTurns made a string in stable only).
func TestOnlyExperimentalAllows(t *testing.T) {
	emb, err := schema.Load("0.163.0")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeSet(t, emb.FS(false), filepath.Join(dir, "stable"))
	writeSet(t, emb.FS(true), filepath.Join(dir, "experimental"))
	p := filepath.Join(dir, "stable", "ClientRequest.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	props := doc["definitions"].(map[string]any)["ThreadReadParams"].(map[string]any)["properties"].(map[string]any)
	props["includeTurns"] = map[string]any{"type": "string"}
	if b, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, b, 0o644)
	set := mustLoadDir(t, dir)
	msg := `c2s {"id":1,"method":"thread/read","params":{"threadId":"x","includeTurns":true}}`
	for _, tc := range []struct {
		init, want string
	}{
		{initPlain, "[2 c2s thread/read experimental /params/includeTurns: wrong type: got boolean, want string (allowed only with experimentalApi)]"},
		{initExp, "[]"},
	} {
		if got := fmt.Sprint(checkAll(t, set, frames(tc.init, msg))); got != tc.want {
			t.Errorf("got %s, want %s", got, tc.want)
		}
	}
}
