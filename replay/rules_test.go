package replay_test

import (
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/wire"
)

func rules(t *testing.T, specs ...string) []replay.Rule {
	t.Helper()
	var out []replay.Rule
	for _, s := range specs {
		kind := replay.RuleIgnore
		if rest, ok := strings.CutPrefix(s, "only "); ok {
			kind, s = replay.RuleMatchOnly, rest
		}
		r, err := replay.ParseRule(kind, s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func TestRulesMatcher(t *testing.T) {
	const (
		hi    = `{"id":1,"method":"turn/start","params":{"threadId":"t","input":[{"type":"text","text":"hi"}],"clientUserMessageId":"a"}}`
		hello = `{"id":1,"method":"turn/start","params":{"threadId":"t","input":[{"type":"text","text":"hello"}],"clientUserMessageId":"b"}}`
		other = `{"id":1,"method":"turn/start","params":{"threadId":"u","input":[{"type":"text","text":"hello"}],"clientUserMessageId":"b"}}`
		twoIn = `{"id":1,"method":"turn/start","params":{"threadId":"t","input":[{"type":"text","text":"x"},{"type":"text","text":"y"}]}}`
		list1 = `{"id":1,"method":"model/list","params":{"cursor":"a"}}`
		list2 = `{"id":1,"method":"model/list","params":{"cursor":"b"}}`
	)
	for _, tc := range []struct {
		name      string
		rules     []string
		mode      replay.Mode
		got, want string
		match     bool
	}{
		{"no rule", nil, replay.ModeStrict, hi, hello, false},
		{"ignore text and message id", []string{"/params/input/*/text", "/params/clientUserMessageId"}, replay.ModeStrict, hi, hello, true},
		{"ignore text only", []string{"/params/input/*/text"}, replay.ModeStrict, hi, hello, false},
		{"per-method ignore", []string{"turn/start:/params/input", "turn/start:/params/clientUserMessageId"}, replay.ModeStrict, hi, hello, true},
		{"rule of another method", []string{"model/list:/params/input", "model/list:/params/clientUserMessageId"}, replay.ModeStrict, hi, hello, false},
		{"ignore leaves the rest compared", []string{"/params/input", "/params/clientUserMessageId"}, replay.ModeStrict, other, hi, false},
		{"** reaches any depth", []string{"/**/text", "/**/clientUserMessageId"}, replay.ModeParams, hi, hello, true},
		{"match-only compares only that", []string{"only /params/threadId"}, replay.ModeStrict, hi, hello, true},
		{"match-only still compares that", []string{"only /params/threadId"}, replay.ModeStrict, other, hello, false},
		{"match-only keeps array positions", []string{"only /params/input/*/type"}, replay.ModeStrict, twoIn, hi, false},
		{"match-only and ignore", []string{"only /params", "/params/cursor"}, replay.ModeStrict, list1, list2, true},
		{"method still compared", []string{"only /nothing"}, replay.ModeStrict, list1, hi, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := replay.RulesMatcher(rules(t, tc.rules...), tc.mode.Matcher())
			if err != nil {
				t.Fatal(err)
			}
			if got := m(msg(tc.got), msg(tc.want)); got != tc.match {
				t.Errorf("match = %v, want %v", got, tc.match)
			}
		})
	}
}

func TestParseRule(t *testing.T) {
	for _, tc := range []struct{ in, method, ptr, err string }{
		{in: "/params/input/*/text", ptr: "/params/input/*/text"},
		{in: "turn/start:/params/input", method: "turn/start", ptr: "/params/input"},
		{in: "turn/start: /params/input", method: "turn/start", ptr: "/params/input"},
		{in: "params/input", err: "starts with '/'"},
		{in: "/a/~2", err: "'~' must be followed by 0 or 1"},
	} {
		r, err := replay.ParseRule(replay.RuleIgnore, tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || r.Method != tc.method || r.Pointer != tc.ptr {
			t.Errorf("%q: %+v, %v; want method %q pointer %q", tc.in, r, err, tc.method, tc.ptr)
		}
	}
}

// changedPrompt plays the plain fixture's client with another prompt.
func changedPrompt(t *testing.T, srv *replay.Server) (string, error) {
	t.Helper()
	s := serve(t, srv)
	for _, cf := range srv.Script.Client {
		line := strings.TrimSuffix(string(cf.Line), "\n")
		if cf.Msg.Method == "turn/start" {
			line = strings.Replace(line, "Say hello to codexrec.", "Say goodbye.", 1)
		}
		s.send(line)
		if cf.Msg.Kind == wire.KindRequest {
			s.response(string(cf.Msg.ID))
		}
	}
	err := s.finish()
	s.rest()
	return s.log.String(), err
}

// TestIgnoreRuleAcceptsChangedPrompt: a prompt changed since recording is refused,
// the diagnostic names the rule that would accept it, and with that rule the
// session replays.
func TestIgnoreRuleAcceptsChangedPrompt(t *testing.T) {
	path := fixture(codexbin.Newest, "plain")
	log, err := changedPrompt(t, &replay.Server{Script: load(t, path, 0)})
	if err == nil {
		t.Fatal("a changed prompt replayed without a rule")
	}
	if !strings.Contains(log, "; or Rules: ignore turn/start:/params/input/*/text (") {
		t.Errorf("the diagnostic names no rule:\n%s", log)
	}
	log, err = changedPrompt(t, &replay.Server{Script: load(t, path, 0), Rules: rules(t, "turn/start:/params/input/*/text")})
	if err != nil {
		t.Fatalf("with the rule: %v\n%s", err, log)
	}
	// A rule that leaves out something else does not hide the difference, and the
	// diagnostic lists only what the rules do not accept.
	log, err = changedPrompt(t, &replay.Server{Script: load(t, path, 0), Rules: rules(t, "/params/threadId")})
	if err == nil || strings.Contains(log, "/params/threadId") || !strings.Contains(log, "/params/input/0/text") {
		t.Errorf("with an unrelated rule: %v\n%s", err, log)
	}
	if err := (&replay.Server{Script: load(t, path, 0), Rules: []replay.Rule{{Pointer: "nope"}}}).Serve(t.Context(), strings.NewReader(""), nil); err == nil ||
		!strings.Contains(err.Error(), `ignore rule "nope"`) {
		t.Errorf("a bad rule: %v", err)
	}
}

func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"/params/input/*/text", "turn/start:/params/input", "turn/start: /a/~1b", "x", ":/", "/a/~2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := replay.ParseRule(replay.RuleIgnore, s)
		if err != nil {
			return
		}
		// A parsed rule reads back as itself and compiles into a matcher.
		back, err := replay.ParseRule(replay.RuleIgnore, r.String())
		if err != nil || back != r {
			t.Fatalf("%q parsed as %+v, which reads back as %+v, %v", s, r, back, err)
		}
		if _, err := replay.RulesMatcher([]replay.Rule{r}, nil); err != nil {
			t.Fatal(err)
		}
	})
}

// BenchmarkRulesMatcher: matching one turn/start with and without an ignore rule
// (each compare decodes and re-encodes both messages once per rule set).
func BenchmarkRulesMatcher(b *testing.B) {
	got := msg(`{"id":7,"method":"turn/start","params":{"threadId":"01a226fa-809e-7f72-ad1c-89518fd21b1d","input":[{"type":"text","text":"Say goodbye."}],"clientUserMessageId":"a"}}`)
	want := msg(`{"id":2,"method":"turn/start","params":{"threadId":"01a226fa-809e-7f72-ad1c-89518fd21b1d","input":[{"type":"text","text":"Say hello to codexrec."}],"clientUserMessageId":"b"}}`)
	ruled, err := replay.RulesMatcher([]replay.Rule{{Method: "turn/start", Pointer: "/params/input/*/text"}, {Pointer: "/params/clientUserMessageId"}}, replay.MatchParams)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		m    replay.MatcherFunc
	}{{"params", replay.MatchParams}, {"params+rules", ruled}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bc.m(got, want)
			}
		})
	}
}
