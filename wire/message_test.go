package wire_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/codexrec/codexrec/wire"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		line   string
		kind   wire.Kind
		method string
		id     wire.ID
		reason string
	}{
		{`{"id":1,"method":"initialize","params":{}}` + "\n", wire.KindRequest, "initialize", "1", ""},
		{`{"id":"1","method":"initialize"}`, wire.KindRequest, "initialize", `"1"`, ""},
		{`{"method":"initialized"}`, wire.KindNotification, "initialized", "", ""},
		{`{"id":0,"result":{"decision":"accept"}}`, wire.KindResponse, "", "0", ""},
		{`{"id":3,"error":{"code":-32600,"message":"Not initialized"}}`, wire.KindError, "", "3", ""},
		{`{"id":null,"error":{"code":-32700,"message":"parse"}}`, wire.KindError, "", "null", ""},
		{`{"jsonrpc":"2.0","id":7,"method":"turn/start","params":{"a":[1,{"method":"nested"}]}}`, wire.KindRequest, "turn/start", "7", ""},
		{`  {"method":"x"}  ` + "\r\n", wire.KindNotification, "x", "", ""},
		{`{"method":"a\u002fb"}`, wire.KindNotification, "a/b", "", ""},
		{`{}`, wire.KindUnknown, "", "", wire.ReasonNotJSONRPC},
		{`{"id":5}`, wire.KindUnknown, "", "5", wire.ReasonNotJSONRPC},
		{`{"method":5}`, wire.KindUnknown, "", "", wire.ReasonNotJSONRPC},
		{"\n", wire.KindRaw, "", "", wire.ReasonBlank},
		{"   \t\r\n", wire.KindRaw, "", "", wire.ReasonBlank},
		{"", wire.KindRaw, "", "", wire.ReasonBlank},
		{"hello world\n", wire.KindRaw, "", "", wire.ReasonNotJSON},
		{`{"id":1,`, wire.KindRaw, "", "", wire.ReasonNotJSON},
		{"{\"method\":\"\xff\"}", wire.KindRaw, "", "", wire.ReasonInvalidUTF8},
		{`[{"id":1,"method":"a"}]`, wire.KindRaw, "", "", wire.ReasonBatch},
		{`"string"`, wire.KindRaw, "", "", wire.ReasonNotObject},
		{`42`, wire.KindRaw, "", "", wire.ReasonNotObject},
	}
	for _, tt := range tests {
		m := wire.Classify([]byte(tt.line))
		if m.Kind != tt.kind || m.Method != tt.method || m.ID != tt.id || m.Reason != tt.reason {
			t.Errorf("Classify(%q) = %+v, want kind %v method %q id %q reason %q", tt.line, m, tt.kind, tt.method, tt.id, tt.reason)
		}
	}
}

func TestPairer(t *testing.T) {
	var p wire.Pairer
	steps := []struct {
		dir      wire.Direction
		line     string
		method   string
		unpaired bool
	}{
		{wire.ClientToServer, `{"id":0,"method":"initialize"}`, "initialize", false},
		// The server's own request 0 overlaps the client's id 0: separate tables.
		{wire.ServerToClient, `{"id":0,"method":"item/commandExecution/requestApproval"}`, "item/commandExecution/requestApproval", false},
		{wire.ServerToClient, `{"id":0,"result":{}}`, "initialize", false},
		{wire.ClientToServer, `{"id":0,"result":{"decision":"accept"}}`, "item/commandExecution/requestApproval", false},
		{wire.ClientToServer, `{"id":1,"method":"thread/start"}`, "thread/start", false},
		// "1" is not 1.
		{wire.ServerToClient, `{"id":"1","result":{}}`, "", true},
		{wire.ServerToClient, `{"id":1,"error":{"code":1,"message":"x"}}`, "thread/start", false},
		// Answered twice: the second answer is unpaired.
		{wire.ServerToClient, `{"id":1,"result":{}}`, "", true},
	}
	for i, s := range steps {
		m := wire.Classify([]byte(s.line))
		p.Observe(s.dir, &m)
		if m.Method != s.method || m.Unpaired != s.unpaired {
			t.Errorf("step %d %s %s: method %q unpaired %v, want %q %v", i, s.dir, s.line, m.Method, m.Unpaired, s.method, s.unpaired)
		}
	}
	if n := p.Pending(wire.ClientToServer) + p.Pending(wire.ServerToClient); n != 0 {
		t.Errorf("pending = %d, want 0", n)
	}
}

func TestUserAgentVersion(t *testing.T) {
	for ua, want := range map[string]string{
		"t/0.171.0 (Debian 12.0.0; x86_64) xterm (t; 1)": "0.171.0",
		"codex_cli_rs/0.163.0":                           "0.163.0",
		"no slash":                                       "",
		"":                                               "",
	} {
		if got := wire.UserAgentVersion(ua); got != want {
			t.Errorf("UserAgentVersion(%q) = %q, want %q", ua, got, want)
		}
	}
}

func TestCodexVersion(t *testing.T) {
	init := []byte(`{"id":0,"result":{"userAgent":"codex_cli_rs/0.171.0 (Debian 12.0.0; x86_64)"}}` + "\n")
	paired := wire.Message{Kind: wire.KindResponse, Method: "initialize", ID: "0"}
	for _, tc := range []struct {
		name string
		f    wire.Frame
		want string
	}{
		{"initialize response", wire.Frame{Dir: wire.ServerToClient, Line: init, Msg: paired}, "0.171.0"},
		{"another response", wire.Frame{Dir: wire.ServerToClient, Line: init, Msg: wire.Message{Kind: wire.KindResponse, Method: "thread/start"}}, ""},
		{"client to server", wire.Frame{Dir: wire.ClientToServer, Line: init, Msg: paired}, ""},
		{"no userAgent", wire.Frame{Dir: wire.ServerToClient, Line: []byte(`{"id":0,"result":{}}`), Msg: paired}, ""},
	} {
		if got := wire.CodexVersion(&tc.f); got != tc.want {
			t.Errorf("%s: CodexVersion = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func FuzzClassify(f *testing.F) {
	for _, s := range []string{`{"id":1,"method":"a"}`, `{"id":1,"result":null}`, "[1]", "\xff", "", `{"method":"x","id":{"a":1}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m := wire.Classify(line)
		var p wire.Pairer
		p.Observe(wire.ClientToServer, &m)
		if m.Kind == wire.KindRaw && m.Reason == "" {
			t.Fatalf("raw without a reason: %q", line)
		}
		if (m.Kind == wire.KindRequest || m.Kind == wire.KindResponse || m.Kind == wire.KindError) && m.ID == "" {
			t.Fatalf("%v without an id: %q", m.Kind, line)
		}
	})
}

// FuzzClassifyAgreesWithEncodingJSON checks the one-pass validator against
// encoding/json: a line is JSON exactly when encoding/json says so.
func FuzzClassifyAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range []string{`{"a":"\u00zz"}`, `{"a":1e}`, `{"a":-0.5E+3}`, `{"a":"x\"y"}`, `[1,2,]`, `{"a":tru}`,
		`{"method":"m\u0041","id":1}`, "{\"a\":\"\t\"}", `{"a":"0123456789abcdef\\"}`, `01`, `{"a":[{"b":null}]}`} {
		f.Add([]byte(s))
	}
	// Strings past 32 bytes take the IndexByte path: escaped quotes at every offset of
	// a word, control characters and a missing close quote there too.
	long := strings.Repeat("0123456789", 5)
	for k := range 9 {
		f.Add([]byte(`{"a":"` + long + long[:k] + `\"` + long + `\\"}`))
		f.Add([]byte(`{"a":"` + long + long[:k] + "\x01" + long + `"}`))
		f.Add([]byte(`{"a":"` + long + long[:k] + `\u00e9\x` + long + `"}`))
	}
	f.Add([]byte(`{"a":"` + long + `\"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		if !utf8.Valid(line) || bytes.IndexByte(line, '\n') >= 0 {
			return
		}
		m := wire.Classify(line)
		isJSON := !(m.Kind == wire.KindRaw && (m.Reason == wire.ReasonNotJSON || m.Reason == wire.ReasonBlank))
		if isJSON != json.Valid(line) {
			t.Fatalf("Classify(%q) = %+v, encoding/json.Valid = %v", line, m, json.Valid(line))
		}
		if m.Kind == wire.KindRequest || m.Kind == wire.KindNotification {
			var v struct{ Method string }
			json.Unmarshal(line, &v)
			if v.Method != m.Method {
				t.Fatalf("method %q, encoding/json says %q", m.Method, v.Method)
			}
		}
	})
}

// FuzzClassifyUTF8: a line is invalid-utf8 exactly when utf8.Valid says so (the
// scanner checks strings as it goes, the whole line only when it is not JSON), and
// otherwise JSON exactly when encoding/json says so.
func FuzzClassifyUTF8(f *testing.F) {
	long := strings.Repeat("0123456789", 5)
	for _, mid := range []string{"é", "日本語", "\uFFFD", "\xff", "\xed\xa0\x80", "\xe6\x97", "\xc3", "😀", "\xf4\x90\x80\x80"} {
		for k := range 9 {
			f.Add([]byte(`{"a":"` + long[:k] + mid + `"}`))
			f.Add([]byte(`{"a":"` + long + long[:k] + mid + long + `"}`))
			f.Add([]byte(`{"a":"` + long + long[:k] + mid + `"}`))
			f.Add([]byte(`{"` + long[:k] + mid + `":1}`))
		}
		f.Add([]byte(`{"a":1}` + mid))
		f.Add([]byte(mid + `{"a":1}`))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return
		}
		m := wire.Classify(line)
		blank := len(bytes.TrimLeft(line, " \t\r")) == 0
		switch {
		case blank:
			if m.Reason != wire.ReasonBlank {
				t.Fatalf("Classify(%q) = %+v, want blank", line, m)
			}
		case !utf8.Valid(line):
			if m.Reason != wire.ReasonInvalidUTF8 {
				t.Fatalf("Classify(%q) = %+v, want invalid-utf8", line, m)
			}
		case m.Reason == wire.ReasonInvalidUTF8:
			t.Fatalf("Classify(%q) = invalid-utf8 for valid UTF-8", line)
		case (m.Kind == wire.KindRaw && m.Reason == wire.ReasonNotJSON) == json.Valid(line):
			t.Fatalf("Classify(%q) = %+v, encoding/json.Valid = %v", line, m, json.Valid(line))
		}
	})
}
