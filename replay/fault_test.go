package replay_test

import (
	"errors"
	"testing"
	"time"

	"codexrec/replay"
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
