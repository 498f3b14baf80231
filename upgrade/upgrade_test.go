package upgrade_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/upgrade"
)

// judge diffs two recording files and judges the pair.
func judge(t *testing.T, name, oldPath, newPath string) upgrade.Recording {
	t.Helper()
	o, err := recorder.ReadFile(oldPath)
	if err != nil {
		t.Fatal(err)
	}
	n, err := recorder.ReadFile(newPath)
	if err != nil {
		t.Fatal(err)
	}
	os_, ns, err := diff.LoadFiles(oldPath, newPath, diff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return upgrade.Judge(name, o, n, diff.Compare(os_, ns), nil)
}

// TestJudge: the committed captures of one scenario on the two pinned versions differ
// in fields only (changed); a recording against itself is the same; a request that
// got a result and now an error is breaking; a failed rerun is breaking.
func TestJudge(t *testing.T) {
	fix := filepath.Join("..", "fixtures", "hermetic")
	plainOld, plainNew := filepath.Join(fix, "0.163.0", "plain.jsonl"), filepath.Join(fix, "0.171.0", "plain.jsonl")
	same := judge(t, "plain", plainOld, plainOld)
	changed := judge(t, "plain", plainOld, plainNew)
	if same.Status != upgrade.Same || changed.Status != upgrade.Changed {
		t.Fatalf("statuses %s, %s; want same, changed", same.Status, changed.Status)
	}
	found := false
	for _, m := range changed.Methods {
		if m.Method == "thread/start" && strings.Contains(strings.Join(m.Added, " "), "/result/thread/attachedToThreadId") {
			found = true
		}
	}
	if !found {
		t.Errorf("the field thread/start gained in 0.171.0 is not listed: %+v", changed.Methods)
	}

	b, err := os.ReadFile(plainOld)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	withReq := func(name, answer string) string {
		var out []string
		for _, l := range strings.SplitAfter(string(b), "\n") {
			if strings.HasPrefix(l, `{"type":"exit"`) {
				out = append(out,
					`{"type":"frame","seq":43,"t":0.99,"dir":"c2s","kind":"request","method":"config/read","id":99,"msg":{"id":99,"method":"config/read","params":{}}}`+"\n",
					`{"type":"frame","seq":44,"t":0.995,"dir":"s2c","kind":"`+answer+`","method":"config/read","id":99,"msg":{"id":99,`+map[string]string{"response": `"result":{}`, "error": `"error":{"code":-32600,"message":"no"}`}[answer]+`}}`+"\n")
			}
			out = append(out, l)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(out, "")), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	br := judge(t, "x", withReq("ok.jsonl", "response"), withReq("rejected.jsonl", "error"))
	if br.Status != upgrade.Breaking || len(br.Why) != 1 || br.Why[0] != "config/read (#1) is rejected: no" {
		t.Errorf("rejected request: %s %q", br.Status, br.Why)
	}

	r := &upgrade.Report{From: "0.163.0", To: "0.171.0", Recordings: []upgrade.Recording{same, changed, br,
		upgrade.Failed("gone", errors.New("capture failed\nsecond line"))}}
	if !r.Breaking() {
		t.Error("a breaking recording does not make the report breaking")
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"recording  status", "plain      same", "plain      changed", "x          breaking", "gone       breaking", "1 same, 1 changed, 2 breaking", "! rerun failed: capture failed\n"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	// Write: the text with secret-shaped values masked, or the JSON.
	const secret = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH"
	r.Recordings = append(r.Recordings, upgrade.Failed("leaky", errors.New("server said "+secret)))
	var masked, js bytes.Buffer
	if err := r.Write(&masked, false); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(masked.String(), secret) || !strings.Contains(masked.String(), "! rerun failed: server said ") || !strings.Contains(masked.String(), "gone       breaking") {
		t.Errorf("Write text:\n%s", masked.String())
	}
	if err := r.Write(&js, true); err != nil || !strings.HasPrefix(js.String(), "{") || !strings.Contains(js.String(), `"from": "0.163.0"`) {
		t.Errorf("Write JSON: %v\n%s", err, js.String())
	}
}
