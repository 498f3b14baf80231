package replay_test

import (
	"testing"

	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/wire"
)

func msg(line string) replay.Message {
	return replay.Message{Msg: wire.Classify([]byte(line)), Line: []byte(line)}
}

// answer is a client's answer to a server request; the replay fills in its method.
func answer(line, method string) replay.Message {
	m := msg(line)
	m.Msg.Method = method
	return m
}

func TestMatchers(t *testing.T) {
	const approval = "item/commandExecution/requestApproval"
	for _, tc := range []struct {
		name                   string
		got, want              replay.Message
		method, strict, params bool
	}{
		{"same request, other id",
			msg(`{"id":7,"method":"thread/start","params":{"cwd":"/a"}}`),
			msg(`{"id":2,"method":"thread/start","params":{"cwd":"/a"}}`), true, true, true},
		{"member order, spaces, jsonrpc member",
			msg(`{"jsonrpc":"2.0","id":0,"params":{"b":1, "a":[1,2]},"method":"m"}`),
			msg(`{"id":1,"method":"m","params":{"a":[1,2],"b":1}}`), true, true, true},
		{"params null vs absent",
			msg(`{"jsonrpc":"2.0","method":"initialized","params":null}`),
			msg(`{"method":"initialized"}`), true, true, true},
		{"path differs",
			msg(`{"id":1,"method":"thread/start","params":{"cwd":"/tmp/run-2/work"}}`),
			msg(`{"id":1,"method":"thread/start","params":{"cwd":"/tmp/run-1/work"}}`), true, false, true},
		{"thread id differs",
			msg(`{"id":1,"method":"turn/start","params":{"threadId":"01a226e1-07df-7722-a8ce-6cbb3abe7e16"}}`),
			msg(`{"id":1,"method":"turn/start","params":{"threadId":"01a226e1-0800-7000-8000-000000000002"}}`), true, false, true},
		{"value differs",
			msg(`{"id":1,"method":"turn/start","params":{"input":[{"type":"text","text":"hi"}]}}`),
			msg(`{"id":1,"method":"turn/start","params":{"input":[{"type":"text","text":"hello"}]}}`), true, false, false},
		{"number 1 vs 1.0",
			msg(`{"id":1,"method":"m","params":{"n":1.0}}`),
			msg(`{"id":1,"method":"m","params":{"n":1}}`), true, false, false},
		{"member missing",
			msg(`{"id":1,"method":"m","params":{}}`),
			msg(`{"id":1,"method":"m","params":{"x":null}}`), true, false, false},
		{"sanitizer placeholder in recorded text",
			msg(`{"id":1,"method":"turn/start","params":{"input":[{"type":"text","text":"read /tmp/w/a.txt please"}]}}`),
			msg(`{"id":1,"method":"turn/start","params":{"input":[{"type":"text","text":"read <workspace>/a.txt please"}]}}`), true, false, true},
		{"placeholder filled in, rest differs",
			msg(`{"id":1,"method":"turn/start","params":{"input":[{"type":"text","text":"read /tmp/w/b.txt please"}]}}`),
			msg(`{"id":1,"method":"turn/start","params":{"input":[{"type":"text","text":"read <workspace>/a.txt please"}]}}`), true, false, false},
		{"redacted secret",
			msg(`{"id":1,"method":"account/login/start","params":{"type":"apiKey","apiKey":"sk-test-0123456789"}}`),
			msg(`{"id":1,"method":"account/login/start","params":{"type":"apiKey","apiKey":"<redacted:openai-key:3f9a1c>"}}`), true, false, true},
		{"placeholder in the live message only",
			msg(`{"id":1,"method":"m","params":{"text":"<workspace>"}}`),
			msg(`{"id":1,"method":"m","params":{"text":"/tmp/w"}}`), true, false, false},
		{"other method",
			msg(`{"id":1,"method":"thread/list","params":{}}`),
			msg(`{"id":1,"method":"thread/start","params":{}}`), false, false, false},
		{"notification vs request",
			msg(`{"method":"thread/start","params":{}}`),
			msg(`{"id":1,"method":"thread/start","params":{}}`), false, false, false},
		{"answer with the recorded id",
			answer(`{"id":0,"result":{"decision":"accept"}}`, approval),
			answer(`{"id":0,"result":{"decision":"accept"}}`, approval), true, true, true},
		{"answer with the id as a string",
			answer(`{"id":"0","result":{"decision":"accept"}}`, approval),
			answer(`{"id":0,"result":{"decision":"accept"}}`, approval), false, false, false},
		{"answer with another decision",
			answer(`{"jsonrpc":"2.0","id":0,"result":{"decision":"decline"}}`, approval),
			answer(`{"id":0,"result":{"decision":"accept"}}`, approval), true, false, false},
		{"error instead of result",
			answer(`{"id":0,"error":{"code":-1,"message":"no"}}`, approval),
			answer(`{"id":0,"result":{"decision":"accept"}}`, approval), false, false, false},
		{"raw lines compare bytes",
			msg(`not json`), msg(`not json`), true, true, true},
		{"raw lines differ",
			msg(`not json`), msg(`not JSON`), false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := replay.MatchMethod(tc.got, tc.want); got != tc.method {
				t.Errorf("MatchMethod = %v, want %v", got, tc.method)
			}
			if got := replay.MatchStrict(tc.got, tc.want); got != tc.strict {
				t.Errorf("MatchStrict = %v, want %v", got, tc.strict)
			}
			if got := replay.MatchParams(tc.got, tc.want); got != tc.params {
				t.Errorf("MatchParams = %v, want %v", got, tc.params)
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	for _, m := range []replay.Mode{replay.ModeParams, replay.ModeStrict, replay.ModeMethod} {
		got, err := replay.ParseMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m, got, err)
		}
	}
	if _, err := replay.ParseMode("exact"); err == nil {
		t.Error("ParseMode(exact): no error")
	}
	var zero replay.Mode
	if zero != replay.ModeParams {
		t.Error("the zero Mode is not params")
	}
}
