package sanitize_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	corpus "github.com/codexrec/codexrec/internal/testing/secretcorpus"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/wire"
)

// leaked reports whether any sizable piece of secret survives in out: in a decoded
// JSON string, in a decoded "...Base64" field, or in a text line (where newlines may
// be written as \n). It does not use the package under test.
func leaked(out []byte, secret string) bool {
	var pieces []string
	for _, p := range strings.Split(secret, "\n") {
		if len(p) >= 12 || p == secret {
			pieces = append(pieces, p)
		}
	}
	has := func(s string) bool {
		for _, p := range pieces {
			if strings.Contains(s, p) {
				return true
			}
		}
		return false
	}
	if !gjson.ValidBytes(out) {
		return has(string(out))
	}
	found := false
	var visit func(key string, v gjson.Result)
	visit = func(key string, v gjson.Result) {
		switch {
		case v.IsObject() || v.IsArray():
			v.ForEach(func(k, vv gjson.Result) bool {
				if has(k.Str) {
					found = true
				}
				visit(k.Str, vv)
				return true
			})
		case v.Type == gjson.String:
			if has(v.Str) {
				found = true
			}
			if strings.HasSuffix(key, "Base64") {
				if dec, err := base64.StdEncoding.DecodeString(v.Str); err == nil && has(string(dec)) {
					found = true
				}
			}
		}
	}
	visit("", gjson.ParseBytes(out))
	return found || has(string(out))
}

// writeRecording writes lines as frames of a recording guarded by g and reports
// whether it was published.
func writeRecording(t *testing.T, lines []string, g func(string) error) error {
	t.Helper()
	w, err := recorder.Create(filepath.Join(t.TempDir(), "r.jsonl"), recorder.Header{Command: []string{"codex", "app-server"}}, recorder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.BeforePublish = g
	for i, l := range lines {
		f := &wire.Frame{Seq: int64(i + 1), Time: time.Millisecond, Dir: wire.ServerToClient, Line: []byte(l + "\n")}
		if !gjson.Valid(l) {
			f.Dir = wire.Stderr
		}
		f.Msg = wire.Classify(f.Line)
		if err := w.WriteFrame(f); err != nil {
			t.Fatal(err)
		}
	}
	return w.Close(recorder.Trailer{Ended: recorder.EndClientEOF})
}

// TestRecallPerRule embeds synthetic secrets of every shape rule in every kind of
// message: each must be redacted, the sanitized recording must pass the guard, and
// the same recording unsanitized must be refused with a finding on every frame.
func TestRecallPerRule(t *testing.T) {
	z, err := sanitize.New(sanitize.Options{Salt: "test"})
	if err != nil {
		t.Fatal(err)
	}
	type tally struct{ cases, redacted, guardCases, guarded int }
	byRule := map[string]*tally{}
	raw := map[string][]string{}
	clean := map[string][]string{}
	for _, s := range newGen(1).shapes(4) {
		tl := byRule[s.Rule]
		if tl == nil {
			tl = &tally{}
			byRule[s.Rule] = tl
		}
		for _, k := range kinds {
			in := k.line(s.Text)
			out, reds := z.Frame([]byte(in + "\n"))
			tl.cases++
			if !leaked(out, s.Secret) {
				tl.redacted++
			} else {
				t.Errorf("%s in %s: not redacted:\n%s", s.Rule, k.name, out)
			}
			if len(reds) == 0 {
				t.Errorf("%s in %s: no redaction reported", s.Rule, k.name)
			}
			if gjson.Valid(in) != gjson.ValidBytes(out) {
				t.Errorf("%s in %s: JSON validity changed:\n%s", s.Rule, k.name, out)
			}
			raw[s.Rule] = append(raw[s.Rule], in)
			clean[s.Rule] = append(clean[s.Rule], strings.TrimSuffix(string(out), "\n"))
		}
	}
	rules := make([]string, 0, len(byRule))
	for r := range byRule {
		rules = append(rules, r)
	}
	sort.Strings(rules)
	for _, r := range rules {
		if err := writeRecording(t, clean[r], z.Guard); err != nil {
			t.Errorf("%s: the sanitized recording was refused: %v", r, err)
		}
		err := writeRecording(t, raw[r], z.Guard)
		var le *sanitize.LeakError
		if !errors.As(err, &le) || !errors.Is(err, sanitize.ErrLeak) {
			t.Errorf("%s: the unsanitized recording was published (err %v)", r, err)
			continue
		}
		seqs := map[int64]bool{}
		for _, l := range le.Leaks {
			seqs[l.Seq] = true
			if strings.Contains(err.Error(), l.Preview) && len(l.Preview) > 20 {
				t.Errorf("%s: preview %q is too revealing", r, l.Preview)
			}
		}
		byRule[r].guardCases = len(raw[r])
		byRule[r].guarded = len(seqs)
		if len(seqs) != len(raw[r]) {
			t.Errorf("%s: the guard flagged %d of %d unsanitized frames", r, len(seqs), len(raw[r]))
		}
	}
	var table strings.Builder
	fmt.Fprintf(&table, "\n%-22s %6s %9s %8s %7s\n", "rule", "cases", "redacted", "recall", "guard")
	for _, r := range rules {
		tl := byRule[r]
		fmt.Fprintf(&table, "%-22s %6d %9d %7.1f%% %6.1f%%\n", r, tl.cases, tl.redacted,
			100*float64(tl.redacted)/float64(tl.cases), 100*float64(tl.guarded)/float64(max(tl.guardCases, 1)))
	}
	t.Log(table.String())
	corpusRules := map[string]bool{}
	for _, c := range corpus.Cases() {
		for _, l := range c.Lines {
			_, reds := z.Frame([]byte(l))
			for _, r := range reds {
				corpusRules[r.Rule] = true
			}
		}
	}
	// And the generated corpus (real keys, the newer providers, command-line flags).
	for _, c := range corpus.GenCases(corpus.CommittedKeys()) {
		for _, f := range c.Frames {
			_, reds := z.FrameClassified([]byte(f.Line), f.Dir != "stderr")
			for _, r := range reds {
				corpusRules[r.Rule] = true
			}
		}
	}
	for _, name := range sanitize.RuleNames() {
		switch name {
		case "known-secret", "env-value", "secret-answer", "api-key", "access-token", "id-token", "refresh-token",
			"session-token", "auth-token", "password", "client-secret":
			continue // not shapes: TestProtocolFields and TestKnownSecretEncodings cover them
		}
		if sanitize.IsGitleaksRule(name) || corpusRules[name] {
			continue // TestCorpus and TestGenCorpus cover them, by provider
		}
		if byRule[name] == nil {
			t.Errorf("rule %s has no synthetic secrets in this test", name)
		}
	}
}

// TestProtocolFields checks the fields the schema says carry secrets: their whole
// value is replaced whatever it looks like, and nothing else is.
func TestProtocolFields(t *testing.T) {
	z, _ := sanitize.New(sanitize.Options{Salt: "test"})
	g := newGen(2)
	v := func() string { return "v" + g.str(23, alnum) }
	cases := []struct {
		in, rule, pointer string
	}{
		{`{"id":1,"method":"account/login/start","params":{"type":"apiKey","apiKey":"%s"}}`, "api-key", "/params/apiKey"},
		{`{"id":0,"result":{"accessToken":"%s","chatgptAccountId":"acct_1","chatgptPlanType":"plus"}}`, "access-token", "/result/accessToken"},
		{`{"id":2,"method":"account/login/start","params":{"type":"chatgptAuthTokens","idToken":"%s","chatgptAccountId":"acct_1"}}`, "id-token", "/params/idToken"},
		{`{"id":3,"method":"account/read","params":{"refreshToken":"%s"}}`, "refresh-token", "/params/refreshToken"},
		{`{"id":4,"method":"x","params":{"amazonBedrockAccessKeys":{"region":"us-east-1","secretAccessKey":"%s","sessionToken":null}}}`, "aws-secret-key", "/params/amazonBedrockAccessKeys/secretAccessKey"},
		{`{"id":5,"method":"x","params":{"creds":{"sessionToken":"%s"}}}`, "session-token", "/params/creds/sessionToken"},
		{`{"id":0,"result":{"token":"%s"}}`, "auth-token", "/result/token"},
		{`{"id":6,"method":"command/exec","params":{"command":["env"],"env":{"DATABASE_URL":"%s","HOME":null}}}`, "env-value", "/params/env/DATABASE_URL"},
		{`{"id":7,"method":"x","params":{"a~b/c":{"apiKey":"%s"}}}`, "api-key", "/params/a~0b~1c/apiKey"},
	}
	for _, c := range cases {
		secret := v()
		in := fmt.Sprintf(c.in, secret)
		out, reds := z.Frame([]byte(in))
		if strings.Contains(string(out), secret) {
			t.Errorf("%s: not redacted: %s", c.rule, out)
		}
		if len(reds) != 1 || reds[0].Rule != c.rule || reds[0].Pointer != c.pointer || !strings.HasPrefix(reds[0].Placeholder, "<redacted:"+c.rule+":") {
			t.Errorf("%s: redactions %+v, want one at %s", c.rule, reds, c.pointer)
		}
		if !gjson.ValidBytes(out) {
			t.Errorf("%s: invalid JSON out: %s", c.rule, out)
		}
		if again, _ := z.Frame(out); string(again) != string(out) {
			t.Errorf("%s: second pass changed %s to %s", c.rule, out, again)
		}
	}
	// Non-secret neighbours keep their bytes: only the value changed.
	in := `{"id":1,"method":"account/login/start","params":{"type":"apiKey","apiKey":"abcdefgh12345678"}}`
	out, _ := z.Frame([]byte(in))
	if !strings.HasPrefix(string(out), `{"id":1,"method":"account/login/start","params":{"type":"apiKey","apiKey":"<redacted:api-key:`) || !strings.HasSuffix(string(out), `>"}}`) {
		t.Errorf("bytes around the value changed: %s", out)
	}
}

// TestSecretAnswers: the answer to a requestUserInput question marked isSecret is
// redacted in the client's response; other answers are not.
func TestSecretAnswers(t *testing.T) {
	z, _ := sanitize.New(sanitize.Options{})
	req := `{"id":0,"method":"item/tool/requestUserInput","params":{"threadId":"t","turnId":"u","itemId":"i","isBlocking":true,"questions":[{"id":"q_user","header":"User","question":"Name?"},{"id":"q_pw","header":"Pw","question":"Password?","isSecret":true}]}}`
	if out, reds := z.Frame([]byte(req)); string(out) != req || len(reds) != 0 {
		t.Fatalf("the request changed: %s %v", out, reds)
	}
	resp := `{"id":0,"result":{"answers":{"q_user":{"answers":["alice"]},"q_pw":{"answers":["correct horse battery"]}}}}`
	out, reds := z.Frame([]byte(resp))
	if strings.Contains(string(out), "correct horse") || !strings.Contains(string(out), `"alice"`) {
		t.Errorf("answers: %s", out)
	}
	if len(reds) != 1 || reds[0].Rule != "secret-answer" || reds[0].Pointer != "/result/answers/q_pw/answers/0" {
		t.Errorf("redactions %+v", reds)
	}
	// A second response with the same id (no pending question) is left alone.
	if out, _ := z.Frame([]byte(resp)); string(out) != resp {
		t.Errorf("an unrelated response was rewritten: %s", out)
	}
}

// TestKnownSecretEncodings: a known value is removed in every form it can take, the
// placeholder is the same for all of them, and the guard finds every form, its hash
// included.
func TestKnownSecretEncodings(t *testing.T) {
	secret := "tok_" + newGen(3).str(28, alnum) + `/+"=\`
	z, err := sanitize.New(sanitize.Options{Secrets: []sanitize.Secret{{Name: "ACCESS_TOKEN", Value: secret}}, Salt: "s"})
	if err != nil {
		t.Fatal(err)
	}
	forms := map[string]string{
		"plain":      secret,
		"url-query":  urlQuery(secret),
		"base64-at0": base64.StdEncoding.EncodeToString([]byte(secret + " tail")),
		"base64-at1": base64.StdEncoding.EncodeToString([]byte("x" + secret + " tail")),
		"base64-at2": base64.StdEncoding.EncodeToString([]byte("xy" + secret)),
		"base64url":  base64.RawURLEncoding.EncodeToString([]byte("abcd" + secret)),
	}
	placeholders := map[string]bool{}
	for name, form := range forms {
		line := `{"method":"item/agentMessage/delta","params":{"delta":` + q("see "+form+" here") + `}}`
		out, reds := z.Frame([]byte(line))
		if len(reds) == 0 || !gjson.ValidBytes(out) {
			t.Errorf("%s: %s -> %s (%v)", name, line, out, reds)
			continue
		}
		for _, r := range reds {
			placeholders[r.Placeholder] = true
		}
		// Whatever is left of an encoded form is at most the two characters at each
		// end that mix in neighbouring bytes.
		if strings.Contains(string(out), form[3:len(form)-3]) || strings.Contains(string(out), secret) {
			t.Errorf("%s survived: %s", name, out)
		}
		// The guard finds the unsanitized form in a recording.
		if err := writeRecording(t, []string{line}, z.Guard); !errors.Is(err, sanitize.ErrLeak) {
			t.Errorf("%s: guard did not refuse: %v", name, err)
		}
	}
	if len(placeholders) != 1 {
		t.Errorf("placeholders differ between encodings: %v", placeholders)
	}
	// A value with a backspace and a form feed, escaped as serde_json writes them
	// (\b, \f) and as encoding/json does (\u0008, \u000c).
	ctl := "tok_" + newGen(4).str(28, alnum) + "\b\f"
	zc, err := sanitize.New(sanitize.Options{Secrets: []sanitize.Secret{{Name: "ACCESS_TOKEN", Value: ctl}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, esc := range []string{strings.NewReplacer("\b", `\b`, "\f", `\f`).Replace(ctl), strings.NewReplacer("\b", `\u0008`, "\f", `\u000c`).Replace(ctl)} {
		line := `{"method":"item/agentMessage/delta","params":{"delta":"see ` + esc + ` here"}}`
		out, reds := zc.Frame([]byte(line))
		if len(reds) == 0 || strings.Contains(string(out), ctl[:20]) {
			t.Errorf("%s -> %s (%v)", line, out, reds)
		}
	}
	// A stderr line with the value, and one with only its SHA-256: both refused.
	for _, l := range []string{"ERROR auth failed for " + secret, "debug: key sha256=" + sha256Hex(secret)} {
		if err := writeRecording(t, []string{l}, z.Guard); !errors.Is(err, sanitize.ErrLeak) {
			t.Errorf("guard missed %q: %v", l[:12], err)
		}
	}
	if _, err := sanitize.New(sanitize.Options{Secrets: []sanitize.Secret{{Name: "SHORT", Value: "abc"}}}); err == nil || strings.Contains(err.Error(), "abc") {
		t.Errorf("a too-short secret: err %v (must be an error that does not print the value)", err)
	}
}

// TestKnownSecretSplitAcrossDeltas: output is streamed in chunks cut anywhere, so a
// known secret may end one delta and begin the next. Every piece of 6 bytes or more
// is replaced at the edges of a delta (shorter pieces may stay: they would match
// ordinary text).
func TestKnownSecretSplitAcrossDeltas(t *testing.T) {
	secret := "tok_" + newGen(8).str(30, alnum)
	z, _ := sanitize.New(sanitize.Options{Secrets: []sanitize.Secret{{Name: "ACCESS_TOKEN", Value: secret}}})
	delta := func(s string) string {
		return `{"method":"item/commandExecution/outputDelta","params":{"itemId":"call_1","delta":` + q(s) + `}}`
	}
	b64 := func(s string) string {
		return `{"method":"command/exec/outputDelta","params":{"processId":"p","stream":"stdout","deltaBase64":"` + base64.StdEncoding.EncodeToString([]byte(s)) + `"}}`
	}
	for p := 1; p < len(secret); p++ {
		head, tail := secret[:p], secret[p:]
		for name, msg := range map[string]func(string) string{"delta": delta, "deltaBase64": b64} {
			o1, _ := z.Frame([]byte(msg("$ echo $ACCESS_TOKEN\n" + head)))
			o2, _ := z.Frame([]byte(msg(tail + "\ndone\n")))
			for _, piece := range []struct {
				s   string
				out []byte
			}{{head, o1}, {tail, o2}} {
				if len(piece.s) >= 6 && leaked(piece.out, piece.s) {
					t.Errorf("%s split at %d: %q survived in %s", name, p, piece.s, piece.out)
				}
			}
		}
	}
	// A delta that merely ends with a few letters the secret also starts with is left
	// alone, and so is a delta without any piece.
	for _, s := range []string{"hello tok_", "no secret here"} {
		if out, reds := z.Frame([]byte(delta(s))); len(reds) != 0 || string(out) != delta(s) {
			t.Errorf("%q: %s %v", s, out, reds)
		}
	}
}

// TestKeywordSuffixes: identifiers ending in the keywords providers use for keys
// introduce a secret value.
func TestKeywordSuffixes(t *testing.T) {
	z, err := sanitize.New(sanitize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const v = "q8Zr2LmX7vPb4NcT9wKd"
	for _, name := range []string{"STRIPE_RESTRICTED_KEY", "TS_AUTHKEY", "SERVICE_AUTH_KEY", "STORAGE_ACCOUNT_KEY", "AccountKey", "JWT_SIGNING_KEY", "DB_ENCRYPTION_KEY", "MASTER_KEY"} {
		if out := z.Text(name + "=" + v); strings.Contains(out, v) {
			t.Errorf("%s=...: kept: %s", name, out)
		}
	}
	for _, keep := range []string{"PRIMARY_KEY=id", "SORT_KEY=created_at", "MONKEY=banana123"} {
		if out := z.Text(keep); out != keep {
			t.Errorf("%s changed to %s", keep, out)
		}
	}
}

// TestEscapesNeverSwallowed: rules that read context see a JSON string decoded, so an
// escaped line break ends a value; the escape itself stays in the line, outside the
// placeholder.
func TestEscapesNeverSwallowed(t *testing.T) {
	z, err := sanitize.New(sanitize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{
		`password=S3cr3tV4lu3Xq9z\nnext line`,
		`DB_PASSWORD: \"Qw8rT5yU2iO9pA3s\"\nport: 5432`,
		`stripe_key=sk_live_` + strings.Repeat("a1B2c3", 5) + `\r\nok`,
		`token\t=\tghp_` + strings.Repeat("x1Y2z3", 6) + `\nnext`,
	} {
		for _, key := range []string{"delta", "aggregatedOutput"} {
			line := `{"method":"item/commandExecution/outputDelta","params":{"itemId":"i","` + key + `":"` + text + `"}}`
			out, reds := z.Frame([]byte(line))
			if len(reds) == 0 {
				t.Errorf("%s in %s: nothing redacted", text, key)
				continue
			}
			tail := text[strings.LastIndex(text, `\n`):]
			if !strings.Contains(string(out), tail) || !json.Valid(out) {
				t.Errorf("%s in %s: the escape or what follows it changed: %s", text, key, out)
			}
		}
	}
}
