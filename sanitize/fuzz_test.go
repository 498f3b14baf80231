package sanitize_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/codexrec/codexrec/sanitize"
)

// fuzzOptions are fixed, realistic options: a known secret, the default-style maps.
func fuzzSanitizer(tb testing.TB) (*sanitize.Sanitizer, []string) {
	maps := []sanitize.Map{{From: "/tmp/ws", To: "<cwd>"}, {From: "/tmp", To: "<tmp>"}, {From: "/home/ann", To: "<home>"}}
	z, err := sanitize.New(sanitize.Options{
		Secrets: []sanitize.Secret{{Name: "ACCESS_TOKEN", Value: "fake-access-token-12345"}},
		Maps:    maps, Salt: "fuzz",
	})
	if err != nil {
		tb.Fatal(err)
	}
	var targets []string
	for _, m := range maps {
		targets = append(targets, m.To)
	}
	return z, targets
}

// checkFrame asserts the properties every sanitized frame has: JSON validity is kept
// both ways, a second pass changes nothing, and out is in with some spans replaced
// by placeholders or map targets (every other byte unchanged).
func checkFrame(t *testing.T, z *sanitize.Sanitizer, targets []string, in []byte) {
	// Each input is a session of its own: a delta that ends inside a secret-shaped
	// token leaves its stream open, and the next delta's first token would be taken
	// for the rest of it.
	z.ForgetStreams()
	defer z.ForgetStreams()
	out, reds := z.Frame(in)
	z.ForgetStreams()
	content := func(b []byte) []byte { return bytes.TrimSuffix(b, []byte("\n")) }
	if json.Valid(content(in)) != json.Valid(content(out)) {
		t.Fatalf("JSON validity changed:\nin:  %q\nout: %q", in, out)
	}
	if bytes.HasSuffix(in, []byte("\n")) != bytes.HasSuffix(out, []byte("\n")) {
		t.Fatalf("newline changed: %q -> %q", in, out)
	}
	again, reds2 := z.Frame(out)
	if !bytes.Equal(again, out) || len(reds2) != 0 {
		t.Fatalf("not idempotent:\nin:   %q\nonce: %q\ntwice: %q %v", in, out, again, reds2)
	}
	if bytes.Equal(in, out) {
		return
	}
	if bytes.Contains(out, []byte("Base64")) && len(reds) > 0 {
		return // a re-encoded base64 field replaces the whole value: checked in tests
	}
	repl := append([]string(nil), targets...)
	for _, r := range reds {
		repl = append(repl, r.Placeholder)
	}
	if !replacedOnly(in, out, repl) {
		t.Fatalf("bytes outside the replaced spans changed:\nin:  %q\nout: %q\nreplacements: %q", in, out, repl)
	}
}

// replacedOnly reports whether out can be made from in by replacing pieces of in
// with strings from repl: the text between replacements must appear in in, in order,
// with the first piece a prefix and the last a suffix.
func replacedOnly(in, out []byte, repl []string) bool {
	var pieces [][]byte
	rest := out
	for {
		at, n := -1, 0
		for _, r := range repl {
			if i := bytes.Index(rest, []byte(r)); i >= 0 && (at < 0 || i < at || i == at && len(r) > n) {
				at, n = i, len(r)
			}
		}
		if at < 0 {
			pieces = append(pieces, rest)
			break
		}
		pieces = append(pieces, rest[:at])
		rest = rest[at+n:]
	}
	if len(pieces) == 1 {
		return bytes.Equal(in, out)
	}
	first, last := pieces[0], pieces[len(pieces)-1]
	if !bytes.HasPrefix(in, first) || !bytes.HasSuffix(in[len(first):], last) {
		return false
	}
	pos, end := len(first), len(in)-len(last)
	for _, p := range pieces[1 : len(pieces)-1] {
		i := bytes.Index(in[pos:end], p)
		if i < 0 {
			return false
		}
		pos += i + len(p)
	}
	return pos <= end
}

func fuzzSeeds(f *testing.F) {
	g := newGen(9)
	for i, s := range g.shapes(1) {
		k := kinds[i%len(kinds)]
		f.Add([]byte(k.line(s.Text) + "\n"))
	}
	for _, s := range []string{
		`{"id":1,"method":"account/login/start","params":{"type":"apiKey","apiKey":"abc\u00e9def12345"}}`,
		`{"params":{"env":{"A":"x"},"cwd":"/tmp/ws/a","p":"\/tmp\/ws"}}` + "\n",
		`{"a":"fake-access-token-12345","b":"ZmFrZS1hY2Nlc3MtdG9rZW4tMTIzNDU=","c":"fake%2Daccess"}`,
		`{"deltaBase64":"cGFzc3dvcmQ9YWJjMTIzZGVmNDU2Cg=="}`,
		`{"method":"item/commandExecution/outputDelta","params":{"itemId":"c","delta":"word KEY=sk-proj-abc"}}`,
		`{"x":"token=abc123def456ghi \"quoted\" \ud83d\ude00 \ud800"}`,
		`not json /tmp/ws sk-proj-0123456789abcdefghijKLMN`,
		`{"unterminated":"sk-proj-0123456789abcdefghijKLMN`,
		"\xff\xfe{\"a\":1}",
		`[1,"/home/ann",{"k":[]}]`,
		`{"id":0,"method":"item/tool/requestUserInput","params":{"questions":[{"id":"q","isSecret":true}]}}`,
	} {
		f.Add([]byte(s))
	}
}

// FuzzFrame: no panic on any input; validity kept both ways; idempotent; bytes outside
// replaced spans unchanged.
func FuzzFrame(f *testing.F) {
	fuzzSeeds(f)
	z, targets := fuzzSanitizer(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		checkFrame(t, z, targets, in)
	})
}

// FuzzScan: the guard never panics, and never flags what the sanitizer produced
// from a JSON object.
func FuzzScan(f *testing.F) {
	fuzzSeeds(f)
	z, _ := fuzzSanitizer(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		if _, err := z.Scan(bytes.NewReader(in)); err != nil {
			t.Fatal(err)
		}
		if bytes.IndexByte(in, '\n') >= 0 || !json.Valid(in) || !strings.HasPrefix(string(in), "{") {
			return
		}
		out, _ := z.Frame(in)
		if leaks, _ := z.Scan(bytes.NewReader(out)); len(leaks) > 0 {
			t.Fatalf("sanitized output still flagged: %q -> %q: %v", in, out, leaks)
		}
	})
}

// FuzzGuardAfterSanitize: whatever the sanitizer writes, the guard (the same
// detectors over the finished recording, deltas joined per stream) finds nothing in
// it. x is a streamed output cut into two deltas, and a message holding it whole.
func FuzzGuardAfterSanitize(f *testing.F) {
	fuzzSeeds(f)
	f.Add([]byte("export GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJklmnop\n"))
	f.Add([]byte("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----"))
	z, _ := fuzzSanitizer(f)
	f.Fuzz(func(t *testing.T, x []byte) {
		z.ForgetStreams()
		defer z.ForgetStreams()
		s := strings.ToValidUTF8(string(x), "?")
		k := len(s) / 2
		for k > 0 && !utf8.RuneStart(s[k]) {
			k--
		}
		q := func(v string) string { b, _ := json.Marshal(v); return string(b) }
		lines := []string{
			`{"method":"item/commandExecution/outputDelta","params":{"itemId":"i","delta":` + q(s[:k]) + `}}`,
			`{"method":"item/commandExecution/outputDelta","params":{"itemId":"i","delta":` + q(s[k:]) + `}}`,
			`{"method":"item/completed","params":{"item":{"id":"i","aggregatedOutput":` + q(s) + `}}}`,
		}
		var file bytes.Buffer
		for i, l := range lines {
			var next []byte
			if i+1 < len(lines) {
				next = []byte(lines[i+1])
			}
			out, _ := z.FrameFollowedBy([]byte(l), true, next)
			fmt.Fprintf(&file, `{"type":"frame","seq":%d,"dir":"s2c","msg":%s}`+"\n", i+1, out)
		}
		leaks, err := z.GuardFindings(file.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if len(leaks) > 0 {
			t.Fatalf("the guard flags the sanitizer's output: %v\n%s", leaks, file.Bytes())
		}
	})
}

// FuzzTrustedFrame: what the leak guard's follower leaves unchecked in a sanitizer's
// output (record trusts a frame's message the sanitizer wrote) is safe to leave: if
// the guard's scan finds anything in a sanitized frame, FindsAcrossStrings says so
// too (a known secret across two strings, or outside every string). The
// sanitizer's secrets here include both kinds.
func FuzzTrustedFrame(f *testing.F) {
	fuzzSeeds(f)
	f.Add([]byte(`{"params":{"k":"tok12345","x":"rest6789"}}`))
	f.Add([]byte(`{"params":{"n":4455667788991}}`))
	f.Add([]byte(`{"params":{"n":"4455667788991"}}`))
	f.Add([]byte(`{"params":{"t":"fake-access-token-12345"}}`))
	z, err := sanitize.New(sanitize.Options{Secrets: []sanitize.Secret{
		{Name: "ACCESS_TOKEN", Value: "fake-access-token-12345"},
		{Name: "SPAN", Value: `tok12345","x":"rest6789`},
		{Name: "NUMBER", Value: "4455667788991"},
	}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if bytes.IndexByte(in, '\n') >= 0 || !json.Valid(in) || !strings.HasPrefix(string(in), "{") {
			return
		}
		out, _ := z.Frame(in)
		if leaks, _ := z.Scan(bytes.NewReader(out)); len(leaks) > 0 && !z.FindsAcrossStrings(out) {
			t.Fatalf("the guard's scan flags the sanitized %q -> %q (%v), FindsAcrossStrings does not", in, out, leaks)
		}
	})
}
