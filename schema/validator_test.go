package schema_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/wire"
)

// frames builds a session from "c2s {...}" / "s2c {...}" lines.
func frames(lines ...string) []wire.Frame {
	var out []wire.Frame
	for i, l := range lines {
		dir, msg, _ := strings.Cut(l, " ")
		d, err := wire.ParseDirection(dir)
		if err != nil {
			panic(err)
		}
		out = append(out, wire.Frame{Seq: int64(i + 1), Dir: d, Line: []byte(msg + "\n")})
	}
	return out
}

const (
	initPlain = `c2s {"id":0,"method":"initialize","params":{"clientInfo":{"name":"t","title":null,"version":"1"}}}`
	initExp   = `c2s {"id":0,"method":"initialize","params":{"clientInfo":{"name":"t","title":null,"version":"1"},"capabilities":{"experimentalApi":true}}}`
)

// TestFindings checks, message by message, the exact findings of the last frame of
// each session. The messages are written by hand: the real binary cannot be made to
// send most of them (faults, a misbehaving client), which is the point.
func TestFindings(t *testing.T) {
	set, err := schema.Load("0.163.0")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		session []string
		want    []string // "rule pointer", in order
	}{
		{"clean request", []string{initPlain, `c2s {"id":1,"method":"thread/read","params":{"threadId":"x","includeTurns":true}}`}, nil},
		{"jsonrpc member tolerated", []string{`c2s {"jsonrpc":"2.0","id":1,"method":"thread/read","params":{"threadId":"x"}}`}, nil},
		{"unknown method", []string{`c2s {"id":1,"method":"thread/frobnicate","params":{}}`},
			[]string{"unknown-method /method"}},
		{"server method from the client", []string{`c2s {"method":"turn/started","params":{}}`},
			[]string{"unknown-method /method"}},
		{"missing required field", []string{`c2s {"id":1,"method":"turn/start","params":{"input":[]}}`},
			[]string{"invalid /params/threadId"}},
		{"wrong type", []string{`c2s {"id":1,"method":"turn/start","params":{"threadId":5,"input":[]}}`},
			[]string{"invalid /params/threadId"}},
		{"int32 out of range", []string{`s2c {"method":"process/exited","params":{"exitCode":3000000000,"processHandle":"p","stderr":"","stderrCapReached":false,"stdout":"","stdoutCapReached":false}}`},
			[]string{"invalid /params/exitCode"}},
		{"int32 in range", []string{`s2c {"method":"process/exited","params":{"exitCode":-2147483648,"processHandle":"p","stderr":"","stderrCapReached":false,"stdout":"","stdoutCapReached":false}}`},
			nil},
		{"initialized sent as a request", []string{initPlain, `c2s {"id":1,"method":"initialized"}`},
			[]string{"invalid /id"}},
		{"request sent as a notification", []string{`c2s {"method":"thread/read","params":{"threadId":"x"}}`},
			[]string{"invalid "}},
		{"response with the wrong result shape", []string{`c2s {"id":1,"method":"thread/start","params":{}}`,
			`s2c {"id":1,"result":{"thread":"not an object","model":"m","modelProvider":"p","cwd":"/","approvalPolicy":"never","approvalsReviewer":"user","sandbox":{"type":"dangerFullAccess"}}}`},
			[]string{"invalid /result/thread"}},
		{"response missing its result's required field", []string{`c2s {"id":"a","method":"thread/read","params":{"threadId":"x"}}`,
			`s2c {"id":"a","result":{}}`},
			[]string{"invalid /result/thread"}},
		{"error response with a malformed error", []string{`c2s {"id":1,"method":"thread/read","params":{"threadId":"x"}}`,
			`s2c {"id":1,"error":{"code":"bad","message":"no"}}`},
			[]string{"invalid /error/code"}},
		{"error response without a message", []string{`c2s {"id":1,"method":"thread/read","params":{"threadId":"x"}}`,
			`s2c {"id":1,"error":{"code":-32600}}`},
			[]string{"invalid /error/message"}},
		{"well-formed error response", []string{`c2s {"id":1,"method":"thread/read","params":{"threadId":"x"}}`,
			`s2c {"id":1,"error":{"code":-32600,"message":"no such thread"}}`}, nil},
		{"response to an id never requested", []string{`c2s {"id":1,"method":"thread/read","params":{"threadId":"x"}}`,
			`s2c {"id":2,"result":{}}`},
			[]string{"unpaired-response /id"}},
		{"ids are per direction", []string{`c2s {"id":1,"method":"thread/read","params":{"threadId":"x"}}`,
			`c2s {"id":1,"result":{}}`},
			[]string{"unpaired-response /id"}},
		{"experimental method without the capability", []string{initPlain, `c2s {"id":1,"method":"thread/increment_elicitation","params":{"threadId":"x"}}`},
			[]string{"experimental /method"}},
		{"experimental method with the capability", []string{initExp, `c2s {"id":1,"method":"thread/increment_elicitation","params":{"threadId":"x"}}`}, nil},
		{"experimental field without the capability", []string{initPlain, `c2s {"id":1,"method":"thread/start","params":{"historyMode":"paginated"}}`},
			[]string{"experimental /params/historyMode"}},
		{"experimental field with the capability", []string{initExp, `c2s {"id":1,"method":"thread/start","params":{"historyMode":"paginated"}}`}, nil},
		{"undeclared field", []string{`c2s {"id":1,"method":"thread/read","params":{"threadId":"x","bogus":{"deep":1}}}`},
			[]string{"undeclared-field /params/bogus"}},
		{"undeclared top-level member", []string{`c2s {"id":1,"method":"thread/read","params":{"threadId":"x"},"extra":1}`},
			[]string{"undeclared-field /extra"}},
		{"tagged union: the error of the variant the tag names", []string{`s2c {"method":"item/started","params":{"threadId":"t","turnId":"u","startedAtMs":1,"item":{"type":"agentMessage","id":"i"}}}`},
			[]string{"invalid /params/item/text"}},
		{"tagged union: unknown tag", []string{`s2c {"method":"item/started","params":{"threadId":"t","turnId":"u","startedAtMs":1,"item":{"type":"hologram","id":"i"}}}`},
			[]string{"invalid /params/item"}},
		{"wrong type for a nullable reference", []string{`c2s {"id":1,"method":"thread/list","params":{"cwd":5}}`},
			[]string{"invalid /params/cwd"}},
		{"not JSON", []string{`c2s {"id":1,`}, []string{"invalid "}},
		{"not JSON-RPC", []string{`s2c {"hello":"world"}`}, []string{"invalid "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := frames(tt.session...)
			v := schema.NewValidator(set)
			var got []string
			var reasons []string
			for i := range fs {
				for _, f := range v.Check(&fs[i]) {
					if f.Seq != int64(len(fs)) {
						t.Errorf("earlier frame %d has a finding: %s", f.Seq, f)
						continue
					}
					if strings.Contains(f.Reason, "\n") || f.Reason == "" {
						t.Errorf("reason is not one line: %q", f.Reason)
					}
					got = append(got, fmt.Sprintf("%s %s", f.Rule, f.Pointer))
					reasons = append(reasons, f.String())
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("findings %q, want %q\n%s", got, tt.want, strings.Join(reasons, "\n"))
			}
			for _, r := range reasons {
				t.Log(r)
			}
		})
	}
}

// TestConcurrentValidators: one Set shared by validators on several goroutines (as
// check does), compiling routes on first use from all of them at once.
func TestConcurrentValidators(t *testing.T) {
	set, err := schema.Load("0.171.0")
	if err != nil {
		t.Fatal(err)
	}
	session := frames(initPlain,
		`c2s {"id":1,"method":"thread/start","params":{}}`,
		`s2c {"id":1,"error":{"code":-32600,"message":"x"}}`,
		`s2c {"method":"item/agentMessage/delta","params":{"threadId":"t","turnId":"u","itemId":"i","delta":"d"},"emittedAtMs":1}`,
		`c2s {"id":2,"method":"turn/start","params":{"input":[]}}`)
	want := fmt.Sprint(checkAll(t, set, session))
	errs := make(chan string, 4)
	for range 4 {
		go func() {
			fresh, _ := schema.Load("0.171.0")
			errs <- fmt.Sprint(checkAll(t, fresh, session)) + "|" + fmt.Sprint(checkAll(t, set, session))
		}()
	}
	for range 4 {
		if got := <-errs; got != want+"|"+want {
			t.Errorf("concurrent findings %s, want %s", got, want)
		}
	}
}

// TestConcurrentRawCheck: the raw check (the path outside tests) on validators of
// one Set on several goroutines at once, which share the expansions it keeps by
// schema and by shape: every captured frame of 0.163.0 checked under 0.171.0 (items
// and members the older schema does not declare) and the bulk bench's turn give the
// findings one goroutine gives.
func TestConcurrentRawCheck(t *testing.T) {
	schema.SetCrossCheck(false)
	defer schema.SetCrossCheck(true)
	var session []wire.Frame
	paths, _ := filepath.Glob(filepath.Join("..", "fixtures", "hermetic", "0.171.0", "*.jsonl"))
	for _, p := range paths {
		rec, err := recorder.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range rec.Frames(wire.ClientToServer, wire.ServerToClient) {
			session = append(session, wire.Frame{Seq: int64(len(session) + 1), Dir: e.Dir, Line: e.Line})
		}
	}
	session = append(session, bulkTurn(t)...)
	for _, version := range []string{"0.163.0", "0.171.0"} {
		set, err := schema.Load(version)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := schema.Load(version)
		if err != nil {
			t.Fatal(err)
		}
		findings := checkAll(t, fresh, session)
		if version == "0.163.0" && len(findings) == 0 {
			t.Fatal("0.163.0 finds nothing in 0.171.0's frames: the test exercises too little")
		}
		want := fmt.Sprint(findings)
		got := make(chan string, 4)
		for range 4 {
			go func() { got <- fmt.Sprint(checkAll(t, set, session)) }()
		}
		for range 4 {
			if g := <-got; g != want {
				t.Errorf("%s: concurrent findings\n%s\nwant\n%s", version, g, want)
			}
		}
	}
}
