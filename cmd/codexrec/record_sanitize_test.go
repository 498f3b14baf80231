package main_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/fixtures/fakemodel"
	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/testing/codextest"
	"github.com/codexrec/codexrec/recorder"
)

// secretForms are the encodings a secret can take in a recording: as is, JSON
// escaped (once, twice), URL-encoded, base64 and base64url at each alignment, and
// its SHA-256 hex. The test computes them itself rather than asking the package.
func secretForms(s string) map[string]string {
	esc, _ := json.Marshal(s)
	esc2, _ := json.Marshal(string(esc))
	forms := map[string]string{
		"plain": s, "json": string(esc[1 : len(esc)-1]), "json2": string(esc2[1 : len(esc2)-1]),
		"query": url.QueryEscape(s), "path": url.PathEscape(s),
	}
	sum := sha256.Sum256([]byte(s))
	forms["sha256"] = hex.EncodeToString(sum[:])
	for name, enc := range map[string]*base64.Encoding{"base64": base64.StdEncoding, "base64url": base64.URLEncoding} {
		for shift, pre := range []string{"", "a", "ab"} {
			e := strings.TrimRight(enc.EncodeToString([]byte(pre+s)), "=")
			skip := []int{0, 2, 3}[shift]
			forms[name+string(rune('0'+shift))] = e[skip : len(e)-2]
		}
	}
	return forms
}

func assertNoTrace(t *testing.T, data []byte, secret string) {
	t.Helper()
	for name, f := range secretForms(secret) {
		if strings.Contains(string(data), f) {
			t.Errorf("the recording holds the secret's %s form", name)
		}
	}
}

// TestRecordRemovesAccessToken is the end-to-end case: the real codex app-server
// runs with a fake ACCESS_TOKEN in its environment, the client puts it in the
// thread's developer instructions and in the turn's text, the model (fakemodel on
// loopback) runs a command that echoes the variable and its base64, and repeats it
// in its reply. Recorded with the defaults, the file holds no trace of it, while the
// client received every byte unchanged.
func TestRecordRemovesAccessToken(t *testing.T) {
	for _, v := range codexbin.Versions {
		t.Run(v, func(t *testing.T) { recordRemovesAccessToken(t, v) })
	}
}

func recordRemovesAccessToken(t *testing.T, version string) {
	bin := codextest.Binary(t, version)
	env, _ := codextest.Env(t)
	token := "fake-access-token/" + strings.Repeat("x7Q", 6) + "+Zz9=" // synthetic, with / + = to vary the encodings
	env = append(env, "ACCESS_TOKEN="+token)
	model, err := fakemodel.Start([]fakemodel.Response{
		{Output: []fakemodel.Item{{Type: "function_call", Name: "exec_command",
			Arguments: json.RawMessage(`{"cmd":"echo \"token is $ACCESS_TOKEN\"; printf %s \"$ACCESS_TOKEN\" | base64 -w0; echo","sandbox_permissions":"require_escalated","justification":"Show the token"}`)}}},
		{Output: []fakemodel.Item{{Type: "message", Text: "Your token is " + token + ", keep it safe."}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "session.jsonl")
	args := append([]string{"record", "-o", out, "--", bin}, codextest.FakeProviderArgs(model.URL())...)
	args = append(args, "-c", "shell_environment_policy.inherit=all", "-c", "shell_environment_policy.ignore_default_excludes=true")
	sess := startSession(t, dir, env, args...)
	sess.onLine = func(l string) { // approve whatever the server asks
		if m := gjson.Parse(l); m.Get("method").Exists() && m.Get("id").Exists() {
			sess.send(`{"id":` + m.Get("id").Raw + `,"result":{"decision":"accept"}}`)
		}
	}
	sess.send(`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"codexrec-test","title":"t","version":"1"}}}`)
	sess.waitResponse("1")
	sess.send(`{"method":"initialized"}`)
	sess.send(`{"id":2,"method":"thread/start","params":{"cwd":` + jsonString(dir) + `,"approvalPolicy":"on-request","sandbox":"workspace-write","developerInstructions":` + jsonString("The deploy token is "+token+".") + `}}`)
	thread := gjson.Get(sess.waitResponse("2"), "result.thread.id").Str
	sess.send(`{"id":3,"method":"turn/start","params":{"threadId":"` + thread + `","input":[{"type":"text","text":` + jsonString("Show my token "+token) + `,"text_elements":[]}]}}`)
	sess.waitFor("turn/completed", func(l string) bool { return gjson.Get(l, "method").Str == "turn/completed" })
	if code := sess.finish(); code != 0 {
		t.Fatalf("record: exit %d; stderr:\n%s", code, sess.stderr)
	}
	received, stderr := sess.received.String(), sess.stderr.String()

	// The wire carried the token: the command printed it and its base64.
	b64 := base64.StdEncoding.EncodeToString([]byte(token))
	if !strings.Contains(received, "token is "+token) || !strings.Contains(received, b64) {
		t.Fatalf("the session did not echo the token (the test proves nothing); client got:\n%.2000s", received)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	assertNoTrace(t, data, token)
	if strings.Contains(string(data), dir) {
		t.Errorf("the recording holds this machine's path %s", dir)
	}
	rec, err := recorder.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]int{}
	for _, e := range rec.Entries {
		if e.Type == recorder.TypeRedaction {
			rules[e.Rule]++
			if !strings.HasPrefix(e.Detail, "<redacted:"+e.Rule+":") || e.Seq == 0 {
				t.Errorf("redaction entry %+v", e)
			}
		}
	}
	if rules["known-secret"] < 4 {
		t.Errorf("redactions by rule: %v; want the token in instructions, input, output, base64 and reply", rules)
	}
	h := rec.Header
	if h.Sanitize == nil || len(h.Sanitize.SecretEnvs) != 1 || h.Sanitize.SecretEnvs[0] != "ACCESS_TOKEN" || !slices.Contains(h.Sanitize.Maps, "<cwd>") {
		t.Errorf("header sanitize info %+v", h.Sanitize)
	}
	if strings.Contains(strings.Join(h.Command, " "), dir) {
		t.Errorf("header command not mapped: %v", h.Command)
	}
	if fi, _ := os.Stat(out); fi.Mode().Perm() != 0o600 {
		t.Errorf("recording mode %v", fi.Mode())
	}
	if !strings.Contains(stderr, "secret(s) redacted") || strings.Contains(stderr, token) {
		t.Errorf("stderr summary:\n%s", stderr)
	}
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

// openAIKey is a synthetic key of the sk-proj- shape (never a real one).
var openAIKey = "sk-proj-" + strings.Repeat("Q3xv9", 30) + "T3Bl"

// catSession records a session with `cat` standing in for the server (it echoes the
// client's lines back): the guard is about the file, so any server will do, and cat
// is the simplest one that puts a secret on both directions.
func catSession(t *testing.T, dir string, extra ...string) (string, result) {
	t.Helper()
	out := filepath.Join(dir, "cat.jsonl")
	args := append(append([]string{"record", "-o", out}, extra...), "--", "cat")
	in := `{"id":1,"method":"turn/start","params":{"input":[{"type":"text","text":"my key is ` + openAIKey + `"}]}}` + "\n"
	return out, runCodexrec(t, dir, strings.NewReader(in), args...)
}

// TestLeakGuardRefuses: with sanitizing off, a recording holding a key is published
// only after the guard redacted it: exit 3, each finding printed located and masked,
// the file holding placeholders and no trace of the key. With the defaults the same
// session is published clean with exit 0.
func TestLeakGuardRefuses(t *testing.T) {
	dir := t.TempDir()
	out, r := catSession(t, dir, "--no-sanitize")
	if r.code != 3 {
		t.Fatalf("exit %d, want 3; stderr:\n%s", r.code, r.stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the guard's redacted recording was not published: %v", err)
	}
	assertNoTrace(t, data, openAIKey)
	if !strings.Contains(string(data), `<redacted:openai-key:`) {
		t.Errorf("no placeholder in the published recording:\n%s", data)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("files besides the recording: %v", ents)
	}
	msg := string(r.stderr)
	for _, want := range []string{"redacted 2 secret-shaped value(s)", "openai-key  seq 1  /msg/params/input/0/text  sk-p…(162 chars)", "openai-key  seq 2  /msg/params/input/0/text"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, openAIKey[:12]) {
		t.Errorf("stderr shows the key:\n%s", msg)
	}
	if string(r.stdout) != `{"id":1,"method":"turn/start","params":{"input":[{"type":"text","text":"my key is `+openAIKey+`"}]}}`+"\n" {
		t.Errorf("the client did not get the exact bytes: %q", r.stdout)
	}
	os.Remove(out)

	// --allow names the false positive; the recording is then published.
	out, r = catSession(t, dir, "--no-sanitize", "--allow", `^sk-proj-Q3xv9`)
	if r.code != 0 {
		t.Fatalf("with --allow: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	os.Remove(out)

	out, r = catSession(t, dir)
	if r.code != 0 {
		t.Fatalf("defaults: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	data, _ = os.ReadFile(out)
	assertNoTrace(t, data, openAIKey)
	if !strings.Contains(string(data), `"type":"redaction","seq":1`) || !strings.Contains(string(data), `<redacted:openai-key:`) {
		t.Errorf("no redaction entries:\n%s", data)
	}
}

// TestSanitizeAndScanCommands: an unsanitized recording (made with the guard off) is
// flagged by scan, sanitize writes a clean copy that keeps every frame, and scan
// passes it.
func TestSanitizeAndScanCommands(t *testing.T) {
	dir := t.TempDir()
	raw, r := catSession(t, dir, "--no-sanitize", "--no-leak-guard")
	if r.code != 0 {
		t.Fatalf("record: exit %d: %s", r.code, r.stderr)
	}
	r = runCodexrec(t, dir, nil, "scan", raw)
	if r.code != 3 || !strings.Contains(string(r.stdout), "openai-key  seq 1") || strings.Contains(string(r.stdout)+string(r.stderr), openAIKey[:12]) {
		t.Errorf("scan of the raw recording: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	clean := filepath.Join(dir, "clean.jsonl")
	r = runCodexrec(t, dir, nil, "sanitize", raw, "-o", clean, "--salt", "s")
	if r.code != 0 {
		t.Fatalf("sanitize: exit %d: %s", r.code, r.stderr)
	}
	data, _ := os.ReadFile(clean)
	assertNoTrace(t, data, openAIKey)
	src, _ := recorder.ReadFile(raw)
	dst, err := recorder.ReadFile(clean)
	if err != nil {
		t.Fatal(err)
	}
	if len(src.Frames()) != len(dst.Frames()) || dst.Trailer == nil || dst.Trailer.Duration != src.Trailer.Duration || dst.Header.Sanitize == nil || !dst.Header.Sanitize.Salted {
		t.Errorf("sanitize lost something: %d -> %d frames, trailer %+v, header %+v", len(src.Frames()), len(dst.Frames()), dst.Trailer, dst.Header)
	}
	if r := runCodexrec(t, dir, nil, "scan", clean); r.code != 0 {
		t.Errorf("scan of the sanitized copy: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Sanitizing twice with the same salt changes nothing.
	again := filepath.Join(dir, "again.jsonl")
	if r := runCodexrec(t, dir, nil, "sanitize", clean, "-o", again, "--salt", "s"); r.code != 0 {
		t.Fatalf("second sanitize: %s", r.stderr)
	}
	d2, _ := recorder.ReadFile(again)
	for i, e := range dst.Frames() {
		if string(d2.Frames()[i].Line) != string(e.Line) {
			t.Errorf("frame %d changed on the second pass", e.Seq)
		}
	}
}

// TestRecordRawAndStderrLines: lines that are not JSON (one not even UTF-8, recorded
// as rawBase64) and stderr lines are text: the key in them is redacted by default and,
// with sanitizing off, found by the guard (the rawBase64 payload decoded).
func TestRecordRawAndStderrLines(t *testing.T) {
	dir := t.TempDir()
	in := "not json: " + openAIKey + "\n" + "\xff\xfe binary " + openAIKey + "\n"
	// sh stands in for a server that prints what it reads to stdout and stderr.
	server := []string{"sh", "-c", "tee /dev/stderr"}
	out := filepath.Join(dir, "raw.jsonl")
	r := runCodexrec(t, dir, strings.NewReader(in), append([]string{"record", "-o", out, "--"}, server...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	data, _ := os.ReadFile(out)
	assertNoTrace(t, data, openAIKey)
	if !strings.Contains(string(data), "rawBase64") || !strings.Contains(string(data), `"dir":"stderr"`) {
		t.Errorf("the session did not produce raw and stderr frames:\n%s", data)
	}
	if r := runCodexrec(t, dir, nil, "scan", out); r.code != 0 {
		t.Errorf("scan of the sanitized recording: %s%s", r.stdout, r.stderr)
	}
	out2 := filepath.Join(dir, "raw2.jsonl")
	r = runCodexrec(t, dir, strings.NewReader(in), append([]string{"record", "--no-sanitize", "-o", out2, "--"}, server...)...)
	if r.code != 3 || !strings.Contains(string(r.stderr), "/rawBase64") || !strings.Contains(string(r.stderr), "/raw ") {
		t.Errorf("unsanitized raw lines: exit %d\n%s", r.code, r.stderr)
	}
}

func TestSanitizeUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"sanitize", "x.jsonl"},
		{"sanitize", "-o", "y.jsonl"},
		{"sanitize", "missing.jsonl", "-o", "y.jsonl"},
		{"sanitize", "--map", "nomapping", "x", "-o", "y"},
		{"scan"},
		{"scan", "missing.jsonl"},
		{"scan", "--allow", "(", "x"},
		{"record", "--map", "/=<root>", "-o", "z.jsonl", "--", "true"},
	} {
		r := runCodexrec(t, dir, nil, args...)
		if r.code != 2 || len(r.stderr) == 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, r.code, r.stderr)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("files left behind: %v", ents)
	}
}
