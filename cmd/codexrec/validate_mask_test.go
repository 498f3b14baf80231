package main_test

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/codexbin"
)

// fakeKey is secret-shaped text made up for the test (the form of an OpenAI project
// key, which the sanitizer's shape rules recognise); it is no one's key.
func fakeKey() string {
	const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := []byte("sk-proj-")
	for i := range 40 {
		b = append(b, chars[rand.IntN(len(chars))])
		if i == 7 {
			b = append(b, '7') // the rule wants a digit
		}
	}
	return string(b)
}

// TestValidateMasksSecrets: a recording holding secret-shaped text where findings
// quote the wire (a method name, a member name in a pointer, an id in a reason) gets
// its findings reported, text and --json, without the secret on stdout or stderr.
func TestValidateMasksSecrets(t *testing.T) {
	method, field, id := fakeKey(), fakeKey(), fakeKey()
	dir := t.TempDir()
	writeRecording(t, filepath.Join(dir, "leaky.jsonl"),
		`c2s {"id":1,"method":"initialize","params":{"clientInfo":{"name":"t","title":null,"version":"1"}}}`,
		initResp163,
		`c2s {"id":2,"method":"`+method+`","params":{}}`,
		`c2s {"id":3,"method":"thread/read","params":{"threadId":"x","`+field+`":true}}`,
		`c2s {"id":"`+id+`","result":{}}`)
	for _, args := range [][]string{{"validate", "leaky.jsonl"}, {"validate", "--json", "leaky.jsonl"}} {
		r := runCodexrec(t, dir, nil, args...)
		// --json escapes < and > as \u003c and \u003e.
		out := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">").Replace(string(r.stdout) + string(r.stderr))
		for _, secret := range []string{method, field, id} {
			if strings.Contains(out, secret) || strings.Contains(out, secret[8:]) {
				t.Errorf("%v: output shows a secret:\n%s", args, out)
			}
		}
		for _, want := range []string{"unknown-method", "undeclared-field", "/params/<redacted:openai-key", "unpaired-response", "<redacted:openai-key"} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: output lacks %q:\n%s", args, want, out)
			}
		}
		if r.code != 1 {
			t.Errorf("%v: exit %d, want 1", args, r.code)
		}
	}
}

// TestRecordMasksSecrets: record's validation summary on stderr masks what it quotes
// from the wire, with the real app-server on the other end. (stdout is the wire
// itself and carries everything byte for byte; the recording is the sanitize stage's.)
func TestRecordMasksSecrets(t *testing.T) {
	method, field := fakeKey(), fakeKey()
	out := filepath.Join(t.TempDir(), "r.jsonl")
	r := recordWithCodex(t, codexbin.Newest, out, nil,
		`{"method":"initialized"}`,
		`{"id":3,"method":"`+method+`","params":{}}`,
		`{"id":2,"method":"thread/list","params":{"`+field+`":1}}`)
	stderr := string(r.stderr)
	for _, secret := range []string{method, field} {
		if strings.Contains(stderr, secret) || strings.Contains(stderr, secret[8:]) {
			t.Errorf("stderr shows a secret:\n%s", stderr)
		}
	}
	for _, want := range []string{"unknown-method /method", "undeclared-field /params/<redacted:openai-key"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}
