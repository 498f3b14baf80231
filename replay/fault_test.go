package replay_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/wire"
)

func TestParseFault(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want replay.Fault
		str  string // String(), when it differs from in
	}{
		{"delay:item/agentMessage/delta=250ms", replay.Fault{Kind: replay.FaultDelay, Method: "item/agentMessage/delta", Delay: 250 * time.Millisecond}, ""},
		{"delay:turn/completed#1=2s", replay.Fault{Kind: replay.FaultDelay, Method: "turn/completed", N: 1, Delay: 2 * time.Second}, ""},
		{"drop:item/agentMessage/delta#2", replay.Fault{Kind: replay.FaultDrop, Method: "item/agentMessage/delta", N: 2}, ""},
		{"duplicate:item/completed", replay.Fault{Kind: replay.FaultDuplicate, Method: "item/completed"}, ""},
		{"reorder:item/started#2", replay.Fault{Kind: replay.FaultReorder, Method: "item/started", N: 2}, ""},
		{"eof", replay.Fault{Kind: replay.FaultEOF, Method: "turn/started", N: 1}, "eof:turn/started#1"},
		{"eof:item/agentMessage/delta#3", replay.Fault{Kind: replay.FaultEOF, Method: "item/agentMessage/delta", N: 3}, ""},
		{"completed-early", replay.Fault{Kind: replay.FaultCompletedEarly, Method: "turn/start", N: 1}, "completed-early:turn/start#1"},
		{"completed-early:turn/start#2", replay.Fault{Kind: replay.FaultCompletedEarly, Method: "turn/start", N: 2}, ""},
		{"overloaded:turn/start", replay.Fault{Kind: replay.FaultOverloaded, Method: "turn/start", N: 1}, "overloaded:turn/start#1"},
		{"garbage", replay.Fault{Kind: replay.FaultGarbage, Text: replay.DefaultGarbage}, ""},
		{"garbage=Welcome to codex!", replay.Fault{Kind: replay.FaultGarbage, Text: "Welcome to codex!"}, ""},
	} {
		got, err := replay.ParseFault(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseFault(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			continue
		}
		str := tc.str
		if str == "" {
			str = tc.in
		}
		if got.String() != str {
			t.Errorf("ParseFault(%q).String() = %q, want %q", tc.in, got.String(), str)
		}
	}
	for _, bad := range []string{
		"", "explode", "delay:turn/completed", "delay:x=soon", "delay:x=-1s", "drop", "drop:", "drop:x#0", "drop:x#two",
		"drop:x=1s", "garbage:x", "completed-early:thread/start", "overloaded", "eof=1",
	} {
		if _, err := replay.ParseFault(bad); !errors.Is(err, replay.ErrBadFault) {
			t.Errorf("ParseFault(%q): %v, want ErrBadFault", bad, err)
		}
	}
}

// indexOf is the position of the nth (1-based) recorded server line of method.
func indexOf(t *testing.T, lines []string, method string, nth int) int {
	t.Helper()
	n := 0
	for i, l := range lines {
		if gjson.Get(l, "method").Str == method {
			if n++; n == nth {
				return i
			}
		}
	}
	t.Fatalf("the recording has no %s #%d", method, nth)
	return -1
}

func responseIndex(t *testing.T, sc *replay.Script, lines []string, method string) int {
	t.Helper()
	for _, cf := range sc.Client {
		if cf.Msg.Method == method && cf.Msg.Kind == wire.KindRequest {
			for i, l := range lines {
				if gjson.Get(l, "id").Raw == string(cf.Msg.ID) && !gjson.Get(l, "method").Exists() {
					return i
				}
			}
		}
	}
	t.Fatalf("the recording has no response to %s", method)
	return -1
}

// TestFaults plays the recorded client of a real plain turn against each fault rule
// and checks the exact lines it receives against the recording, transformed as the
// rule says.
func TestFaults(t *testing.T) {
	sc := load(t, fixture(codexbin.Newest, "plain"), 0)
	rec := s2c(sc)
	edit := func(f func(l []string) []string) []string { return f(append([]string(nil), rec...)) }
	for _, tc := range []struct {
		rule string
		want []string
	}{
		{"drop:item/agentMessage/delta#2", edit(func(l []string) []string {
			i := indexOf(t, l, "item/agentMessage/delta", 2)
			return append(l[:i], l[i+1:]...)
		})},
		{"drop:item/agentMessage/delta", edit(func(l []string) []string {
			var out []string
			for _, x := range l {
				if gjson.Get(x, "method").Str != "item/agentMessage/delta" {
					out = append(out, x)
				}
			}
			return out
		})},
		{"duplicate:item/completed#1", edit(func(l []string) []string {
			i := indexOf(t, l, "item/completed", 1)
			return append(l[:i+1], l[i:]...)
		})},
		{"reorder:item/agentMessage/delta#1", edit(func(l []string) []string {
			i := indexOf(t, l, "item/agentMessage/delta", 1)
			l[i], l[i+1] = l[i+1], l[i]
			return l
		})},
		{"completed-early", edit(func(l []string) []string {
			c := indexOf(t, l, "turn/completed", 1)
			r := responseIndex(t, sc, l, "turn/start")
			done := l[c]
			l = append(l[:c], l[c+1:]...)
			return append(l[:r], append([]string{done}, l[r:]...)...)
		})},
		{"garbage=Welcome to codex!", append([]string{"Welcome to codex!\n"}, rec...)},
		{"delay:item/agentMessage/delta#3=1ms", rec},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			f, err := replay.ParseFault(tc.rule)
			if err != nil {
				t.Fatal(err)
			}
			got, err := playRecorded(t, &replay.Server{Script: sc, KeepPlaceholders: true, Faults: []replay.Fault{f}})
			if err != nil {
				t.Fatalf("Serve: %v", err)
			}
			if strings.Join(got, "") != strings.Join(tc.want, "") {
				t.Fatalf("got %d lines, want %d:\n%s", len(got), len(tc.want), lineDiff(tc.want, got))
			}
		})
	}
}

// TestFaultEOF: the stream ends right after the chosen frame (turn/started #1 by
// default, an EOF mid-turn) and the output is closed.
func TestFaultEOF(t *testing.T) {
	sc := load(t, fixture(codexbin.Newest, "plain"), 0)
	rec := s2c(sc)
	for _, rule := range []string{"eof", "eof:item/agentMessage/delta#3"} {
		t.Run(rule, func(t *testing.T) {
			f, _ := replay.ParseFault(rule)
			srv := &replay.Server{Script: sc, KeepPlaceholders: true, Faults: []replay.Fault{f}}
			s := serve(t, srv)
			got, _ := s.playClient(sc)
			got = append(got, s.rest()...) // EOF comes while the client still has its input open
			want := rec[:indexOf(t, rec, f.Method, f.N)+1]
			if strings.Join(got, "") != strings.Join(want, "") {
				t.Fatalf("got %d lines, want %d:\n%s", len(got), len(want), lineDiff(want, got))
			}
			if err := s.finish(); err != nil {
				t.Errorf("Serve: %v", err)
			}
		})
	}
}

// TestFaultDelay: a delayed frame comes no earlier than the delay after the client
// message it answers (a lower bound only; speed is for benchmarks).
func TestFaultDelay(t *testing.T) {
	sc := load(t, fixture(codexbin.Newest, "plain"), 0)
	const delay = 150 * time.Millisecond
	f, _ := replay.ParseFault("delay:item/agentMessage/delta#3=" + delay.String())
	s := serve(t, &replay.Server{Script: sc, KeepPlaceholders: true, Faults: []replay.Fault{f}})
	_, sent := s.playClient(sc)
	s.notification("item/agentMessage/delta")
	s.notification("item/agentMessage/delta")
	if gap := time.Since(sent); gap >= delay {
		t.Logf("delta #2 already came %v after turn/start: the machine is slow, the check below proves less", gap)
	}
	s.notification("item/agentMessage/delta")
	if gap := time.Since(sent); gap < delay {
		t.Errorf("delta #3 came %v after turn/start, want at least %v", gap, delay)
	}
	s.notification("turn/completed")
	if err := s.finish(); err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestFaultOverloaded: the chosen request gets the app-server's overloaded error
// with the live id; the client's retry is served from the recording.
func TestFaultOverloaded(t *testing.T) {
	sc := load(t, fixture(codexbin.Newest, "plain"), 0)
	f, _ := replay.ParseFault("overloaded:turn/start")
	s := serve(t, &replay.Server{Script: sc, KeepPlaceholders: true, Faults: []replay.Fault{f}})
	var got []string
	for _, cf := range sc.Client {
		line := strings.TrimSuffix(string(cf.Line), "\n")
		s.send(line)
		if cf.Msg.Kind != wire.KindRequest {
			continue
		}
		l := s.response(string(cf.Msg.ID))
		if cf.Msg.Method == "turn/start" {
			last := l[len(l)-1]
			want := `{"error":{"code":-32001,"message":"server overloaded"},"id":` + string(cf.Msg.ID) + "}\n"
			if last != want {
				t.Fatalf("first turn/start answered %s, want %s", last, want)
			}
			got = append(got, l[:len(l)-1]...)
			s.send(line)
			l = s.response(string(cf.Msg.ID))
		}
		got = append(got, l...)
	}
	if err := s.finish(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	got = append(got, s.rest()...)
	if want := s2c(sc); strings.Join(got, "") != strings.Join(want, "") {
		t.Fatalf("after the retry: %s", lineDiff(want, got))
	}
}

// FuzzParseFault: every rule either fails with ErrBadFault or prints as a rule that
// parses back to itself.
func FuzzParseFault(f *testing.F) {
	for _, s := range []string{"eof", "garbage=x=y", "delay:a#2=1ms", "drop:a:b", "completed-early:turn/start#3", "overloaded:x#1", "reorder:#1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := replay.ParseFault(s)
		if err != nil {
			if !errors.Is(err, replay.ErrBadFault) {
				t.Fatalf("ParseFault(%q): %v does not wrap ErrBadFault", s, err)
			}
			return
		}
		back, err := replay.ParseFault(r.String())
		if err != nil || back != r {
			t.Fatalf("ParseFault(%q) = %+v prints %q, which parses to %+v, %v", s, r, r.String(), back, err)
		}
	})
}

// TestFaultChoosesNothing: a rule that chooses no frame of the recording is said so
// on Log, so a misspelt method does not pass for a robust client.
func TestFaultChoosesNothing(t *testing.T) {
	sc := load(t, fixture(codexbin.Newest, "plain"), 0)
	var faults []replay.Fault
	for _, r := range []string{"drop:item/agentMessag/delta", "completed-early:turn/start#2", "overloaded:turn/start#2", "eof:turn/completed#1"} {
		f, err := replay.ParseFault(r)
		if err != nil {
			t.Fatal(err)
		}
		faults = append(faults, f)
	}
	log := &syncBuffer{}
	s := serve(t, &replay.Server{Script: sc, KeepPlaceholders: true, Faults: faults, Log: log})
	s.finish()
	for _, want := range []string{"fault drop:item/agentMessag/delta chooses nothing", "fault completed-early:turn/start#2 chooses nothing",
		"fault overloaded:turn/start#2 chooses nothing"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log.String(), "eof:turn/completed#1") {
		t.Errorf("a rule that chooses a frame is reported:\n%s", log)
	}
}
