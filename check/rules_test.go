package check_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/check"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

type want struct {
	rule string
	seqs []int64
}

func (w want) String() string { return fmt.Sprintf("%s%v", w.rule, w.seqs) }

const (
	c2s = wire.ClientToServer
	s2c = wire.ServerToClient
)

// ruleCases break one rule each in a real recording of an accepted command approval
// (a turn with a userMessage, a commandExecution item with output deltas, an
// approval request, serverRequest/resolved and an agentMessage with deltas). Each
// returns the exact findings (rule and frames) the checker must report at warning
// level or above, plus any of the rule under test.
var ruleCases = []struct {
	name   string
	base   string // fixture scenario when not approval-accept
	mutate func(m *mutable) []want
	after  func(t testing.TB, path string) // edits the written file
}{
	{"unanswered: turn/start response dropped", "", func(m *mutable) []want {
		req := m.seqAt(m.find(c2s, wire.KindRequest, "turn/start", 0))
		m.remove(m.find(s2c, wire.KindResponse, "turn/start", 0))
		return []want{{check.RuleUnanswered, []int64{req}}}
	}, nil},
	{"unanswered: approval never answered", "", func(m *mutable) []want {
		req := m.seqAt(m.find(s2c, wire.KindRequest, "item/commandExecution/requestApproval", 0))
		m.remove(m.find(c2s, wire.KindResponse, "", 0))
		// The server resolved it anyway in the real run; only the missing answer is wrong.
		return []want{{check.RuleUnanswered, []int64{req}}}
	}, nil},
	{"unanswered: a request the first server lifetime never answered (ids restart after it)", "resume", func(m *mutable) []want {
		// Both lifetimes number their requests from 1; only the dropped answer is wrong.
		req := m.seqAt(m.find(c2s, wire.KindRequest, "turn/start", 0))
		m.remove(m.find(s2c, wire.KindResponse, "turn/start", 0))
		return []want{{check.RuleUnanswered, []int64{req}}}
	}, nil},
	{"unknown-thread: a thread not resumed after the restart", "resume", func(m *mutable) []want {
		thread := gjson.GetBytes(m.rec.Entries[m.find(s2c, wire.KindResponse, "thread/start", 0)].JSON(), "result.thread.id").Str
		m.remove(m.find(s2c, wire.KindResponse, "thread/resume", 0))
		m.remove(m.find(c2s, wire.KindRequest, "thread/resume", 0))
		seg := 0
		for i, e := range m.rec.Entries {
			if e.Type == recorder.TypeSegment && e.Segment == 2 {
				seg = i
			}
		}
		for _, e := range m.rec.Entries[seg:] {
			if e.Type == recorder.TypeFrame && e.Dir == s2c && (e.Msg.Kind == wire.KindNotification || e.Msg.Kind == wire.KindRequest) &&
				gjson.GetBytes(e.JSON(), "params.threadId").Str == thread {
				return []want{{check.RuleUnknownThread, []int64{e.Seq}}}
			}
		}
		m.t.Fatal("no message of the thread after the restart")
		return nil
	}, nil},
	{"duplicate-response", "", func(m *mutable) []want {
		i := m.find(s2c, wire.KindResponse, "thread/start", 0)
		dup := m.clone(i)
		m.insert(i+1, dup)
		return []want{{check.RuleDuplicateResponse, []int64{dup.Seq, m.seqAt(i)}}}
	}, nil},
	{"response-without-request", "", func(m *mutable) []want {
		i := m.find(s2c, wire.KindResponse, "thread/start", 0)
		stray := m.frame(s2c, `{"id":4242,"result":{}}`)
		m.insert(i+1, stray)
		return []want{{check.RuleResponseNoRequest, []int64{stray.Seq}}}
	}, nil},
	{"duplicate-request-id", "", func(m *mutable) []want {
		i := m.find(c2s, wire.KindRequest, "turn/start", 0)
		dup := m.clone(i)
		m.insert(i+1, dup)
		// The response pairs with the second request; the first is silently lost,
		// which is what duplicate-request-id is about.
		return []want{{check.RuleDuplicateID, []int64{dup.Seq, m.seqAt(i)}}}
	}, nil},
	{"error-response with code and message", "", func(m *mutable) []want {
		// The real server's reply to an unknown method, as measured (-32600).
		i := m.find(s2c, wire.KindResponse, "thread/start", 0)
		req := m.frame(c2s, `{"id":900,"method":"thread/nonsense","params":{}}`)
		resp := m.frame(s2c, `{"id":900,"error":{"code":-32600,"message":"Invalid request: unknown variant `+"`thread/nonsense`"+`"}}`)
		m.insert(i+1, req, resp)
		return []want{{check.RuleErrorResponse, []int64{resp.Seq, req.Seq}}}
	}, nil},
	{"turn-incomplete: turn/completed dropped", "", func(m *mutable) []want {
		resp := m.seqAt(m.find(s2c, wire.KindResponse, "turn/start", 0))
		started := m.seqAt(m.find(s2c, wire.KindNotification, "turn/started", 0))
		m.remove(m.find(s2c, wire.KindNotification, "turn/completed", 0))
		return []want{{check.RuleTurnIncomplete, []int64{resp, started}}}
	}, nil},
	{"turn-order: turn/started twice", "", func(m *mutable) []want {
		i := m.find(s2c, wire.KindNotification, "turn/started", 0)
		dup := m.clone(i)
		m.insert(i+1, dup)
		return []want{{check.RuleTurnOrder, []int64{dup.Seq, m.seqAt(i)}}}
	}, nil},
	{"turn-order: turn/started missing", "", func(m *mutable) []want {
		resp := m.seqAt(m.find(s2c, wire.KindResponse, "turn/start", 0))
		m.remove(m.find(s2c, wire.KindNotification, "turn/started", 0))
		done := m.seqAt(m.find(s2c, wire.KindNotification, "turn/completed", 0))
		return []want{{check.RuleTurnOrder, []int64{done, resp}}}
	}, nil},
	{"duplicate-completion", "", func(m *mutable) []want {
		i := m.find(s2c, wire.KindNotification, "turn/completed", 0)
		dup := m.clone(i)
		m.insert(i+1, dup)
		return []want{{check.RuleDuplicateCompleted, []int64{dup.Seq, m.seqAt(i)}}}
	}, nil},
	{"turn-failed", "", func(m *mutable) []want {
		i := m.find(s2c, wire.KindNotification, "turn/completed", 0)
		m.edit(i, func(msg map[string]any) {
			turn := msg["params"].(map[string]any)["turn"].(map[string]any)
			turn["status"] = "failed"
			turn["error"] = map[string]any{"message": "stream disconnected before completion"}
		})
		return []want{{check.RuleTurnFailed, []int64{m.seqAt(i)}}}
	}, nil},
	{"late-event: delta after turn/completed", "", func(m *mutable) []want {
		d := m.find(s2c, wire.KindNotification, "item/agentMessage/delta", 0)
		delta := m.seqAt(d)
		done := m.find(s2c, wire.KindNotification, "turn/completed", 0)
		m.move(d, done)
		return []want{{check.RuleLateEvent, []int64{delta, m.seqAt(done - 1)}}}
	}, nil},
	{"early-completion: turn/completed before the turn/start response", "", func(m *mutable) []want {
		r := m.find(s2c, wire.KindResponse, "turn/start", 0)
		resp := m.seqAt(r)
		done := m.find(s2c, wire.KindNotification, "turn/completed", 0)
		m.move(r, done)
		return []want{{check.RuleEarlyCompletion, []int64{m.seqAt(done - 1), resp}}}
	}, nil},
	{"item-order: item/completed twice", "", func(m *mutable) []want {
		i := m.find(s2c, wire.KindNotification, "item/completed", 1)
		dup := m.clone(i)
		m.insert(i+1, dup)
		return []want{{check.RuleItemOrder, []int64{dup.Seq, m.seqAt(i)}}}
	}, nil},
	{"item-order: delta after item/completed", "", func(m *mutable) []want {
		d := m.find(s2c, wire.KindNotification, "item/agentMessage/delta", 0)
		delta := m.seqAt(d)
		item := gjson.GetBytes(m.rec.Entries[d].JSON(), "params.itemId").Str
		c := m.findItem("item/completed", item)
		m.move(d, c)
		return []want{{check.RuleItemOrder, []int64{delta, m.seqAt(c - 1)}}}
	}, nil},
	{"item-order: item never completed in a turn nobody cut short", "", func(m *mutable) []want {
		d := m.find(s2c, wire.KindNotification, "item/agentMessage/delta", 0)
		item := gjson.GetBytes(m.rec.Entries[d].JSON(), "params.itemId").Str
		started := m.seqAt(m.findItem("item/started", item))
		m.remove(m.findItem("item/completed", item))
		done := m.seqAt(m.find(s2c, wire.KindNotification, "turn/completed", 0))
		return []want{{check.RuleItemOrder, []int64{done, started}}}
	}, nil},
	{"item-abandoned: the real interrupted turn, as recorded", "interrupt", func(m *mutable) []want {
		d := m.find(s2c, wire.KindNotification, "item/agentMessage/delta", 0)
		item := gjson.GetBytes(m.rec.Entries[d].JSON(), "params.itemId").Str
		started := m.seqAt(m.findItem("item/started", item))
		done := m.seqAt(m.find(s2c, wire.KindNotification, "turn/completed", 0))
		return []want{{check.RuleItemAbandoned, []int64{done, started}}}
	}, nil},
	{"item-abandoned: the real steered turn, as recorded", "steer", func(m *mutable) []want {
		d := m.find(s2c, wire.KindNotification, "item/agentMessage/delta", 0)
		item := gjson.GetBytes(m.rec.Entries[d].JSON(), "params.itemId").Str
		started := m.seqAt(m.findItem("item/started", item))
		done := m.seqAt(m.find(s2c, wire.KindNotification, "turn/completed", 0))
		return []want{{check.RuleItemAbandoned, []int64{done, started}}}
	}, nil},
	{"delta-without-item", "", func(m *mutable) []want {
		d := m.find(s2c, wire.KindNotification, "item/agentMessage/delta", 0)
		m.edit(d, func(msg map[string]any) { msg["params"].(map[string]any)["itemId"] = "msg_never_started" })
		return []want{{check.RuleDeltaWithoutItem, []int64{m.seqAt(d)}}}
	}, nil},
	{"unknown-thread", "", func(m *mutable) []want {
		i := m.find(s2c, wire.KindNotification, "thread/status/changed", 0)
		m.edit(i, func(msg map[string]any) {
			msg["params"].(map[string]any)["threadId"] = "01a2ffff-0000-7000-8000-000000000000"
		})
		return []want{{check.RuleUnknownThread, []int64{m.seqAt(i)}}}
	}, nil},
	{"foreign-thread: another thread's id inside a turn", "", func(m *mutable) []want {
		// A second thread the session knows (a real thread/started, re-addressed), then
		// one delta of the first thread's turn carrying it.
		t := m.find(s2c, wire.KindNotification, "thread/started", 0)
		other := m.clone(t)
		m.insert(t+1, other)
		m.edit(t+1, func(msg map[string]any) {
			msg["params"].(map[string]any)["thread"].(map[string]any)["id"] = "01a2eeee-0000-7000-8000-000000000000"
		})
		d := m.find(s2c, wire.KindNotification, "item/agentMessage/delta", 0)
		m.edit(d, func(msg map[string]any) {
			msg["params"].(map[string]any)["threadId"] = "01a2eeee-0000-7000-8000-000000000000"
		})
		return []want{{check.RuleForeignThread, []int64{m.seqAt(d)}}}
	}, nil},
	{"unresolved-server-request", "", func(m *mutable) []want {
		req := m.seqAt(m.find(s2c, wire.KindRequest, "item/commandExecution/requestApproval", 0))
		m.remove(m.find(s2c, wire.KindNotification, "serverRequest/resolved", 0))
		return []want{{check.RuleUnresolved, []int64{req}}}
	}, nil},
	{"stdout-noise: a log line and a blank line on stdout", "", func(m *mutable) []want {
		i := m.find(s2c, wire.KindResponse, "initialize", 0)
		log := m.frame(s2c, "2026-11-29T10:00:00Z INFO codex_core: starting")
		blank := m.frame(s2c, "")
		m.insert(i, log, blank)
		return []want{{check.RuleStdoutNoise, []int64{log.Seq}}, {check.RuleStdoutNoise, []int64{blank.Seq}}}
	}, nil},
	{"client-noise", "", func(m *mutable) []want {
		i := m.find(c2s, wire.KindRequest, "initialize", 0)
		junk := m.frame(c2s, `{"hello":"not json-rpc"}`)
		m.insert(i+1, junk)
		return []want{{check.RuleClientNoise, []int64{junk.Seq}}}
	}, nil},
	{"invalid-utf8", "", func(m *mutable) []want {
		i := m.find(s2c, wire.KindResponse, "initialize", 0)
		bad := m.frame(s2c, "{\"method\":\"warning\",\"params\":{\"message\":\"caf\xe9\"}}")
		m.insert(i+1, bad)
		return []want{{check.RuleInvalidUTF8, []int64{bad.Seq}}}
	}, nil},
	{"invalid-utf8: a lone surrogate escape inside a message", "", func(m *mutable) []want {
		d := m.find(s2c, wire.KindNotification, "item/agentMessage/delta", 0)
		m.replace(d, `"delta":"`, `"delta":"\ud83d and a pair \ud83d\ude00 `)
		return []want{{check.RuleInvalidUTF8, []int64{m.seqAt(d)}}}
	}, nil},
	{"no finding for an escaped backslash before u001b, or a surrogate pair", "", func(m *mutable) []want {
		d := m.find(s2c, wire.KindNotification, "item/agentMessage/delta", 0)
		m.replace(d, `"delta":"`, `"delta":"\\u001b[31m \ud83d\ude00 `)
		return []want{}
	}, nil},
	{"ansi-escape inside a message", "", func(m *mutable) []want {
		d := m.find(s2c, wire.KindNotification, "item/agentMessage/delta", 0)
		m.edit(d, func(msg map[string]any) { msg["params"].(map[string]any)["delta"] = "\x1b[31mred\x1b[0m" })
		return []want{{check.RuleANSI, []int64{m.seqAt(d)}}}
	}, nil},
	{"server-exit: killed by a signal", "", func(m *mutable) []want {
		for i, e := range m.rec.Entries {
			if e.Type == recorder.TypeExit {
				m.rec.Entries[i].ExitCode, m.rec.Entries[i].Signal = 137, "SIGKILL"
			}
		}
		return []want{{check.RuleServerExit, nil}}
	}, nil},
	{"stderr-error: counted as info", "", func(m *mutable) []want {
		i := m.find(s2c, wire.KindResponse, "initialize", 0)
		line := m.frame(wire.Stderr, "\x1b[2m2026-11-29T10:00:00Z\x1b[0m \x1b[31mERROR\x1b[0m codex_core: stream error")
		m.insert(i, line)
		var ws []want
		for _, e := range m.rec.Entries { // the real recording has its own ERROR lines
			if e.Type == recorder.TypeFrame && e.Dir == wire.Stderr && strings.Contains(string(e.Line), "ERROR") {
				ws = append(ws, want{check.RuleStderrError, []int64{e.Seq}})
			}
		}
		return ws
	}, nil},
	{"truncated: no trailer", "", func(m *mutable) []want {
		return []want{{check.RuleTruncated, nil}}
	}, cutTrailer},
	{"truncated: the last line torn mid-entry", "", func(m *mutable) []want {
		// One finding for the missing trailer, one for the torn line.
		return []want{{check.RuleTruncated, nil}, {check.RuleTruncated, nil}}
	}, func(t testing.TB, path string) {
		cutTrailer(t, path)
		appendToFile(t, path, `{"type":"frame","seq":999,"t":9,"dir":"s2c","kind":"notifica`)
	}},
	{"structure: a frame after the trailer, its seq going backwards", "", func(m *mutable) []want {
		return []want{{check.RuleStructure, []int64{1}}, {check.RuleStructure, []int64{1}}}
	}, func(t testing.TB, path string) {
		appendToFile(t, path, `{"type":"frame","seq":1,"t":9,"dir":"stderr","raw":"late"}`+"\n")
	}},
	{"schema findings recorded live are included", "", func(m *mutable) []want {
		i := m.find(s2c, wire.KindNotification, "turn/started", 0)
		seq := m.seqAt(i)
		m.insert(i+1, recorder.Entry{Type: recorder.TypeFinding, Seq: seq, Dir: s2c, Msg: wire.Message{Method: "turn/started"},
			Rule: "invalid", Severity: "error", Pointer: "/params/turn/id", Reason: "expected string, got number"})
		return []want{{"schema/invalid", []int64{seq}}}
	}, nil},
}

func TestRules(t *testing.T) {
	for _, tc := range ruleCases {
		t.Run(tc.name, func(t *testing.T) {
			base := tc.base
			if base == "" {
				base = "approval-accept"
			}
			m := mutate(t, fixture(t, base))
			wants := tc.mutate(m)
			path := m.write()
			if tc.after != nil {
				tc.after(t, path)
			}
			streamed := 0
			res, err := (&check.Checker{OnFinding: func(check.Finding) { streamed++ }}).CheckFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if streamed != len(res.Findings) {
				t.Errorf("OnFinding saw %d findings, the result holds %d", streamed, len(res.Findings))
			}
			ruleUnderTest := ""
			if len(wants) > 0 {
				ruleUnderTest = wants[0].rule
			}
			var got []want
			for _, f := range res.Findings {
				// Mutations insert frames under fresh seqs, out of file order: that is a
				// structure finding, tested by its own case.
				if f.Rule == check.RuleStructure && ruleUnderTest != check.RuleStructure {
					continue
				}
				if f.Severity >= check.Warning || f.Rule == ruleUnderTest {
					got = append(got, want{f.Rule, f.Seqs})
				}
			}
			if !sameWants(got, wants) {
				t.Errorf("findings:\n got  %v\n want %v", got, wants)
				for _, f := range res.Findings {
					t.Logf("%s %s %v: %s", f.Severity, f.Rule, f.Seqs, f.Message)
				}
			}
		})
	}
}

func sameWants(a, b []want) bool {
	key := func(ws []want) []string {
		var k []string
		for _, w := range ws {
			k = append(k, w.String())
		}
		slices.Sort(k)
		return k
	}
	return slices.Equal(key(a), key(b))
}

// TestQuotedTextMasked: a recording made without sanitizing may hold a secret in a
// stderr line, a noise line or an error message; check quotes those, masked.
func TestQuotedTextMasked(t *testing.T) {
	const key = "sk-proj-Zq8vT3nB5xK2mW9pL4rY7cH1dF6gJ0sA"
	m := mutate(t, fixture(t, "approval-accept"))
	i := m.find(s2c, wire.KindResponse, "thread/start", 0)
	req := m.frame(c2s, `{"id":901,"method":"thread/nonsense","params":{}}`)
	m.insert(i+1,
		m.frame(wire.Stderr, "2026-11-29T10:00:00Z ERROR codex_core: auth failed for "+key),
		// The key starts before the preview's 60-byte cut and ends after it.
		m.frame(s2c, "noise on stdout, the key straddles the cut: "+key),
		req,
		m.frame(s2c, `{"id":901,"error":{"code":-32600,"message":"bad key `+key+`"}}`))
	res, err := (&check.Checker{}).CheckFile(m.write())
	if err != nil {
		t.Fatal(err)
	}
	quoted := 0
	for _, f := range res.Findings {
		switch f.Rule {
		case check.RuleStderrError, check.RuleStdoutNoise, check.RuleErrorResponse:
			if strings.Contains(f.Message, "Zq8v") {
				t.Errorf("%s quotes the secret: %s", f.Rule, f.Message)
			}
			if strings.Contains(f.Message, "<redacted:") {
				quoted++
			}
		}
	}
	if quoted != 3 {
		t.Errorf("%d findings quote the masked key, want 3: %+v", quoted, res.Findings)
	}
}

func appendToFile(t testing.TB, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// TestEveryRuleHasACase keeps the table honest: each rule --list-rules shows is broken
// by at least one case above (answer-shape and the schema rules in schema_test.go).
func TestEveryRuleHasACase(t *testing.T) {
	covered := map[string]bool{check.RuleAnswerShape: true, check.RuleSchema: true}
	for _, tc := range ruleCases {
		base := tc.base
		if base == "" {
			base = "approval-accept"
		}
		for _, w := range tc.mutate(mutate(t, fixture(t, base))) {
			covered[w.rule] = true
		}
	}
	for _, r := range check.Rules() {
		if !covered[r.ID] && !check.IsAssertion(r.ID) { // assertions: assert_test.go
			t.Errorf("no case breaks rule %s", r.ID)
		}
	}
}
