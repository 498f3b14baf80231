package normalize_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/normalize"
)

// run normalises msgs in order with one Normalizer and returns each result marshalled.
func run(t *testing.T, opts normalize.Options, msgs ...string) []string {
	t.Helper()
	n, err := normalize.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		v, err := n.Message([]byte(m))
		if err != nil {
			t.Fatalf("Message(%s): %v", m, err)
		}
		out = append(out, string(normalize.Marshal(v)))
	}
	return out
}

func TestMessage(t *testing.T) {
	const (
		u1 = "01a226e1-07df-7722-a8ce-6cbb3abe7e16"
		u2 = "01A226E1-0800-7000-8000-000000000002" // upper case: the same id as its lower case
		u3 = "01a226e1-0900-7000-8000-000000000003"
	)
	tests := []struct {
		name string
		opts normalize.Options
		in   []string
		want []string
	}{{
		name: "ids become symbols by kind and first appearance, references stay consistent",
		in: []string{
			`{"id":7,"result":{"thread":{"id":"` + u1 + `","sessionId":"` + u1 + `","turns":[{"id":"` + u2 + `"}]}}}`,
			`{"method":"turn/started","params":{"threadId":"` + u1 + `","turnId":"` + strings.ToLower(u2) + `","other":"` + u3 + `"}}`,
			`{"method":"x","params":{"turnIds":["` + u3 + `"],"parentThreadId":"` + u1 + `"}}`,
		},
		want: []string{
			`{"id":"<request-id>","result":{"thread":{"id":"thread#1","sessionId":"thread#1","turns":[{"id":"turn#1"}]}}}`,
			`{"method":"turn/started","params":{"other":"id#1","threadId":"thread#1","turnId":"turn#1"}}`,
			`{"method":"x","params":{"parentThreadId":"thread#1","turnIds":["id#1"]}}`,
		},
	}, {
		name: "run-varying members are masked, null and type are kept",
		in: []string{`{"method":"item/started","emittedAtMs":1795948611543,"params":{"item":{"startedAtMs":1,"completedAtMs":null,` +
			`"durationMs":5,"createdAt":"2026-11-29T10:36:51Z","resetsAt":12,"requestId":0},"userAgent":"a/0.171.0 (Debian)",` +
			`"cliVersion":"0.171.0","processId":42,"serverName":"vm","installationId":"` + u1 + `","when":"2026-11-29T10:36:51.463357+01:00"}}`},
		want: []string{`{"emittedAtMs":"<time>","method":"item/started","params":{"cliVersion":"<version>","installationId":"<installation>",` +
			`"item":{"completedAtMs":null,"createdAt":"<time>","durationMs":"<duration>","requestId":"<request-id>","resetsAt":"<time>","startedAtMs":"<time>"},` +
			`"processId":"<process>","serverName":"<host>","userAgent":"<user-agent>","when":"<time>"}}`},
	}, {
		name: "paths: roots are learned and replaced, run-specific paths masked",
		in: []string{
			`{"id":1,"result":{"codexHome":"/tmp/home.abc","platformOs":"linux"}}`,
			`{"id":2,"result":{"cwd":"/tmp/work.xyz","runtimeWorkspaceRoots":["/tmp/work.xyz"],"thread":{"path":"/tmp/home.abc/sessions/2026/11/29/rollout-` + u1 + `.jsonl"}}}`,
			`{"method":"m","params":{"path":"/tmp/work.xyz/a.txt","rel":{"path":"src/a.go"},"abs":{"path":"/etc/passwd"},"text":"wrote /tmp/work.xyz/a.txt and /tmp/home.abc/config.toml","instructionSources":["/tmp/home.abc/AGENTS.md"]}}`,
		},
		want: []string{
			`{"id":"<request-id>","result":{"codexHome":"<path>","platformOs":"linux"}}`,
			`{"id":"<request-id>","result":{"cwd":"<path>","runtimeWorkspaceRoots":["<path>"],"thread":{"path":"<path>"}}}`,
			`{"method":"m","params":{"abs":{"path":"<path>"},"instructionSources":["<codexHome>/AGENTS.md"],"path":"<cwd>/a.txt","rel":{"path":"src/a.go"},"text":"wrote <cwd>/a.txt and <codexHome>/config.toml"}}`,
		},
	}, {
		name: "sanitizer placeholders lose their salted hash; path placeholders stay",
		in:   []string{`{"method":"m","params":{"delta":"key <redacted:openai-key:3f9a1c> and <redacted:aws:00ff>!","file":"<cwd>/x"}}`},
		want: []string{`{"method":"m","params":{"delta":"key <redacted:openai-key> and <redacted:aws>!","file":"<cwd>/x"}}`},
	}, {
		name: "JSON inside strings is parsed and normalised",
		in:   []string{`{"method":"m","params":{"arguments":"{\"cmd\":\"echo ` + u1 + `\",\"b\":[1, 2]}","plain":"{not json}"}}`},
		want: []string{`{"method":"m","params":{"arguments":"{\"b\":[1,2],\"cmd\":\"echo id#1\"}","plain":"{not json}"}}`},
	}, {
		name: "ignore patterns drop members; * is one segment, ** any",
		opts: normalize.Options{Ignore: []string{"/params/item/text", "/params/*/kept~1not", "/**/cwd", "/params/list/1"}},
		in:   []string{`{"method":"m","params":{"item":{"text":"x","n":1},"a":{"kept/not":1,"b":2},"deep":{"x":{"cwd":"/a"}},"cwd":"/b","list":[0,1,2]}}`},
		want: []string{`{"method":"m","params":{"a":{"b":2},"deep":{"x":{}},"item":{"n":1},"list":[0,2]}}`},
	}, {
		name: "NoBuiltin keeps everything but ignores",
		opts: normalize.Options{NoBuiltin: true, Ignore: []string{"/id"}},
		in:   []string{`{"id":1,"result":{"threadId":"` + u1 + `","createdAt":5}}`},
		want: []string{`{"result":{"createdAt":5,"threadId":"` + u1 + `"}}`},
	}, {
		name: "duplicate keys keep the last, as encoding/json does",
		in:   []string{`{"method":"m","params":{"b":1,"a":1,"b":2}}`},
		want: []string{`{"method":"m","params":{"a":1,"b":2}}`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, tt.opts, tt.in...)
			for i := range tt.want {
				if got[i] != tt.want[i] {
					t.Errorf("message %d:\n got %s\nwant %s", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// Two sessions that differ only in generated ids and times normalise to equal values.
func TestEqualAcrossRuns(t *testing.T) {
	a := run(t, normalize.Options{},
		`{"id":1,"result":{"thread":{"id":"11111111-1111-7111-8111-111111111111","createdAt":1}}}`,
		`{"method":"turn/started","params":{"threadId":"11111111-1111-7111-8111-111111111111","turn":{"id":"22222222-1111-7111-8111-111111111111"}},"emittedAtMs":5}`)
	b := run(t, normalize.Options{},
		`{"id":9,"result":{"thread":{"id":"aaaaaaaa-1111-7111-8111-111111111111","createdAt":2}}}`,
		`{"method":"turn/started","params":{"threadId":"aaaaaaaa-1111-7111-8111-111111111111","turn":{"id":"bbbbbbbb-1111-7111-8111-111111111111"}},"emittedAtMs":6}`)
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("message %d differs:\n%s\n%s", i, a[i], b[i])
		}
	}
}

func TestEqual(t *testing.T) {
	n := normalize.MustNew(normalize.Options{})
	val := func(s string) any {
		v, err := n.Message([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":[true,null]}`, `{"b":[true,null],"a":1}`, true},
		{`{"a":1}`, `{"a":1.0}`, false},
		{`{"a":"1"}`, `{"a":1}`, false},
		{`{"createdAt":1}`, `{"createdAt":2}`, true},
		{`{"createdAt":1}`, `{"createdAt":"1"}`, false}, // masked, but the type changed
		{`{"createdAt":1}`, `{"createdAt":null}`, false},
		{`{"a":[1]}`, `{"a":[1,1]}`, false},
		{`{"x":"{\"a\":1}"}`, `{"x":"{ \"a\" : 1 }"}`, true},
	}
	for _, tt := range tests {
		if got := normalize.Equal(val(tt.a), val(tt.b)); got != tt.want {
			t.Errorf("Equal(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestErrors(t *testing.T) {
	for _, p := range []string{"params/x", "", "/a/~2"} {
		if _, err := normalize.New(normalize.Options{Ignore: []string{p}}); err == nil {
			t.Errorf("New(Ignore %q): no error", p)
		}
	}
	n := normalize.MustNew(normalize.Options{})
	if _, err := n.Message([]byte(`{"a":`)); !errors.Is(err, normalize.ErrNotJSON) {
		t.Errorf("Message(truncated) = %v, want ErrNotJSON", err)
	}
}

func TestTypeOf(t *testing.T) {
	n := normalize.MustNew(normalize.Options{})
	v, _ := n.Message([]byte(`{"n":null,"b":true,"x":1,"s":"a","o":{},"a":[],"createdAt":"2026-11-29T10:00:00Z","j":"[1]"}`))
	want := map[string]string{"n": "null", "b": "bool", "x": "number", "s": "string", "o": "object", "a": "array", "createdAt": "string", "j": "string"}
	for _, m := range v.(normalize.Object) {
		if got := normalize.TypeOf(m.Value); got != want[m.Key] {
			t.Errorf("TypeOf(%s) = %s, want %s", m.Key, got, want[m.Key])
		}
	}
}
