package schema

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// TestRawAgreesWithDecoded: the raw check (raw.go) gives the fast check's verdict and
// the undeclared walk's answer on the bytes of every message of the captured fixtures
// and of mutants of them (values of other types, members removed and added), exactly
// as the decoded path does on the decoded value; and it finds every fixture message,
// as it was on the wire, clean.
func TestRawAgreesWithDecoded(t *testing.T) {
	type sample struct {
		r *route
		v any
	}
	var samples []sample
	perRoute := map[*route]int{}
	old := fastHook
	fastHook = func(s *Set, r *route, v any, fast verdict) {
		old(s, r, v, fast)
		if perRoute[r] < 3 {
			perRoute[r]++
			samples = append(samples, sample{r, v})
		}
	}
	for _, version := range []string{"0.163.0", "0.171.0"} {
		set, err := Load(version)
		if err != nil {
			t.Fatal(err)
		}
		paths, _ := filepath.Glob(filepath.Join("..", "fixtures", "hermetic", version, "*.jsonl"))
		if len(paths) == 0 {
			t.Fatalf("no fixtures for %s", version)
		}
		for _, p := range paths {
			checkFile(t, p, set)
		}
	}
	fastHook = old
	if len(samples) < 20 {
		t.Fatalf("only %d samples", len(samples))
	}
	for _, sm := range samples {
		if b := encode(t, sm.v); !rawClean(sm.r, b) {
			t.Errorf("a fixture message is not clean to the raw check: %s", b)
		}
	}
	variants := []any{"x", "a\"b\\c\n", json.Number("1"), json.Number("-1"), json.Number("1.5"),
		json.Number("4294967296"), true, nil, map[string]any{}, []any{}, map[string]any{"type": "x"}}
	checked, unclean := 0, 0
	for _, sm := range samples {
		for i, p := range positions(sm.v, nil) {
			if i >= 80 {
				break
			}
			for j := range 3 {
				m := replaceAt(sm.v, p, variants[(i+j*4)%len(variants)], j == 2)
				b := encode(t, m)
				fast, raw := fastValidate(sm.r.fast, m), rawSchema(sm.r.fast, b, 0)
				if fast != raw {
					t.Fatalf("verdict on %s: raw %d, decoded %d (route %s)", b, raw, fast, sm.r.loc)
				}
				decl := len(undeclaredPre(m, sm.r.walk, sm.r.top, nil)) == 0
				if got := rawDeclared(b, sm.r.walk, sm.r.top, true); got != decl {
					t.Fatalf("all declared in %s: raw %v, decoded %v (route %s)", b, got, decl, sm.r.loc)
				}
				checked++
				if fast != valid || !decl {
					unclean++
				}
			}
		}
	}
	if unclean < checked/10 {
		t.Errorf("only %d of %d mutants were not clean: the test exercises too little", unclean, checked)
	}
	t.Logf("%d samples, %d mutants, %d not clean", len(samples), checked, unclean)
}

// TestRawRepeatedAndEscapedKeys: decoding keeps the last of a repeated member, and
// the raw check must answer as the decoded value does; an escaped member name is
// left to the decoded path (not clean to the raw check, whatever it spells).
func TestRawRepeatedAndEscapedKeys(t *testing.T) {
	set, err := Load("0.171.0")
	if err != nil {
		t.Fatal(err)
	}
	m, ok := set.Method(wire.ServerToClient, wire.KindNotification, "item/agentMessage/delta")
	if !ok {
		t.Fatal("no item/agentMessage/delta")
	}
	r := set.routeFor(1, wire.KindNotification, &m)
	for _, tc := range []struct {
		line  string
		clean bool
	}{
		{`{"method":"item/agentMessage/delta","params":{"threadId":"a","turnId":"b","itemId":"c","delta":"d"}}`, true},
		{`{"method":"item/agentMessage/delta","params":{"threadId":1,"threadId":"a","turnId":"b","itemId":"c","delta":"d"}}`, true},
		{`{"method":"item/agentMessage/delta","params":{"threadId":"a","threadId":1,"turnId":"b","itemId":"c","delta":"d"}}`, false},
		{`{"method":"item/agentMessage/delta","params":{"thread\u0049d":"a","turnId":"b","itemId":"c","delta":"d"}}`, false},
		{`{"method":"item/agentMessage/delta","params":{"threadId":"a","turnId":"b","itemId":"c","delta":"d","extra":1}}`, false},
		{`{"method":"item/agentMessage/delta","params":{"threadId":"a","turnId":"b","itemId":"c"}}`, false},
	} {
		if got := rawClean(r, []byte(tc.line)); got != tc.clean {
			t.Errorf("rawClean(%s) = %v, want %v", tc.line, got, tc.clean)
		}
	}
}

func encode(t *testing.T, v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSpace(b.Bytes())
}

// TestRawUnionObjects: an object under a union (an item of item/started) is read
// once for every alternative and for the undeclared walk, and the walk's expansion is
// kept by the schemas the object chose; the raw check still answers as the decoded
// path does, message after message of different alternatives, with a repeated tag
// (decoding keeps the last), with a member of another alternative, and with the
// tag's value escaped.
func TestRawUnionObjects(t *testing.T) {
	set, err := Load("0.171.0")
	if err != nil {
		t.Fatal(err)
	}
	m, ok := set.Method(wire.ServerToClient, wire.KindNotification, "item/started")
	if !ok {
		t.Fatal("no item/started")
	}
	r := set.routeFor(1, wire.KindNotification, &m)
	const agent = `"type":"agentMessage","id":"i","text":"hello\nworld","phase":null,"memoryCitation":null`
	const user = `"type":"userMessage","id":"i","content":[{"type":"text","text":"hi","text_elements":[]}]`
	wrap := func(item string) string {
		return `{"method":"item/started","params":{"item":{` + item + `},"threadId":"a","turnId":"b","startedAtMs":1}}`
	}
	type unionCase struct {
		line       string
		wantClean  bool
		checkClean bool // wantClean is known
	}
	cases := []unionCase{
		{wrap(agent), true, true},
		{wrap(user), true, true},
		{wrap(agent), true, true},
		{wrap(agent + `,"content":[]`), false, true},                                            // a member of userMessage only
		{wrap(user + `,"text":"x"`), false, true},                                               // a member of agentMessage only
		{wrap(`"type":"userMessage",` + agent), false, false},                                   // repeated tag, the last wins
		{wrap(`"type":"agentMessage",` + user), false, false},                                   // the same the other way
		{wrap(`"type":"agent\u004dessage"` + agent[len(`"type":"agentMessage"`):]), true, true}, // escaped tag, decoded the same
		{wrap(agent), true, true},
	}
	// Every captured item under the type of every other: the same members, another
	// tag, each right after the item as it was.
	items := map[string]string{}
	paths, _ := filepath.Glob(filepath.Join("..", "fixtures", "hermetic", "0.171.0", "*.jsonl"))
	for _, p := range paths {
		rec, err := recorder.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range rec.Frames(wire.ServerToClient) {
			if e.Msg.Method != "item/started" && e.Msg.Method != "item/completed" {
				continue
			}
			v, err := decode(e.Line)
			if err != nil {
				t.Fatal(err)
			}
			item, _ := v.(map[string]any)["params"].(map[string]any)["item"].(map[string]any)
			if typ, _ := item["type"].(string); typ != "" && items[typ] == "" {
				items[typ] = string(encode(t, item))
			}
		}
	}
	if len(items) < 4 {
		t.Fatalf("only %d item types in the fixtures", len(items))
	}
	for typ, item := range items {
		for other := range items {
			if other != typ {
				retyped := strings.Replace(item, `"type":"`+typ+`"`, `"type":"`+other+`"`, 1)
				cases = append(cases, unionCase{line: wrap(item[1 : len(item)-1])}, unionCase{line: wrap(retyped[1 : len(retyped)-1])})
			}
		}
	}
	for _, tc := range cases {
		b := []byte(tc.line)
		v, err := decode(b)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		params := v.(map[string]any)
		fast, raw := fastValidate(r.fast, params), rawSchema(r.fast, b, 0)
		if fast != raw {
			t.Errorf("verdict on %s: raw %d, decoded %d", b, raw, fast)
		}
		decl := len(undeclaredPre(params, r.walk, r.top, nil)) == 0
		if got := rawDeclared(b, r.walk, r.top, true); got != decl {
			t.Errorf("all declared in %s: raw %v, decoded %v", b, got, decl)
		}
		if got := rawClean(r, b); tc.checkClean && got != tc.wantClean {
			t.Errorf("rawClean(%s) = %v, want %v", b, got, tc.wantClean)
		}
	}
}
