package mask_test

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/mask"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

func key() string {
	r := rand.New(rand.NewPCG(1, 2))
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := []byte("ghp_")
	for range 36 {
		b = append(b, alnum[r.IntN(len(alnum))])
	}
	return string(b)
}

func TestMasker(t *testing.T) {
	k := key()
	line := []byte(`{"method":"x","params":{"text":"use ` + k + ` now"}}` + "\n")
	e := &recorder.Entry{Type: recorder.TypeFrame, Dir: wire.ClientToServer, Msg: wire.Classify(line), Line: line}
	m, err := mask.New(false)
	if err != nil {
		t.Fatal(err)
	}
	out := m.Frame(e)
	if strings.Contains(string(out), k) || !strings.Contains(string(out), "<redacted:github-token:") || !json.Valid(out) {
		t.Errorf("Frame = %s", out)
	}
	clean := []byte(`{"method":"y","params":{}}` + "\n")
	if got := m.Frame(&recorder.Entry{Type: recorder.TypeFrame, Dir: wire.ServerToClient, Msg: wire.Classify(clean), Line: clean}); string(got) != `{"method":"y","params":{}}` {
		t.Errorf("a clean frame became %s", got)
	}
	if got := m.Text("token " + k); strings.Contains(got, k) {
		t.Errorf("Text = %s", got)
	}
	rl := `{"type":"frame","seq":1,"t":0,"dir":"c2s","kind":"request","msg":` + strings.TrimSpace(string(line)) + "}\n"
	if got := m.Line([]byte(rl)); strings.Contains(string(got), k) || !json.Valid(got) {
		t.Errorf("Line = %s", got)
	}
	if got := m.Strings([]string{"a", k}); got[1] == k {
		t.Errorf("Strings = %q", got)
	}

	r, err := mask.New(true)
	if err != nil || r != nil {
		t.Fatalf("New(reveal) = %v, %v; want a nil Masker", r, err)
	}
	if got := r.Frame(e); string(got) != strings.TrimSpace(string(line)) || r.Text(k) != k || string(r.Line(line)) != string(line) {
		t.Error("a revealing Masker changed its input")
	}
}
