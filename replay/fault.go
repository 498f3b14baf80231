package replay

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/codexrec/codexrec/wire"
)

// FaultKind is what a fault rule does.
type FaultKind uint8

const (
	// FaultDelay holds the chosen server frames back for Fault.Delay.
	// Example: delay:item/agentMessage/delta=250ms (every delta), delay:turn/completed#1=2s.
	FaultDelay FaultKind = iota + 1
	// FaultDrop never sends the chosen frames. Example: drop:item/agentMessage/delta#2.
	FaultDrop
	// FaultDuplicate sends the chosen frames twice. Example: duplicate:item/completed.
	FaultDuplicate
	// FaultReorder sends each chosen frame after the server frame that follows it.
	// Example: reorder:item/started#2.
	FaultReorder
	// FaultEOF ends the stream right after the chosen frame: nothing more is sent and
	// the output is closed. Without a selector it is turn/started#1, an EOF mid-turn.
	// Example: eof, eof:item/agentMessage/delta#3.
	FaultEOF
	// FaultCompletedEarly sends the turn's turn/completed before the response to the
	// chosen turn/start (#1 without a selector). Example: completed-early,
	// completed-early:turn/start#2.
	FaultCompletedEarly
	// FaultOverloaded answers the chosen client request with the app-server's
	// overloaded error (-32001) instead of serving it; the client's retry is served
	// from the recording. Example: overloaded:turn/start (#1 without a number).
	FaultOverloaded
	// FaultGarbage writes a line that is not JSON before the first server frame.
	// Example: garbage, garbage=Welcome to codex!
	FaultGarbage
)

var faultNames = [...]string{"", "delay", "drop", "duplicate", "reorder", "eof", "completed-early", "overloaded", "garbage"}

func (k FaultKind) String() string {
	if int(k) < len(faultNames) && k > 0 {
		return faultNames[k]
	}
	return fmt.Sprintf("fault(%d)", uint8(k))
}

// Fault is one fault rule. Rules about server frames choose them by method
// (notifications and server requests) and occurrence, counted in recorded order.
type Fault struct {
	Kind   FaultKind
	Method string        // the chosen frames' or request's method
	N      int           // 1-based occurrence; 0 means every occurrence
	Delay  time.Duration // FaultDelay
	Text   string        // FaultGarbage: the line, without its newline
}

// DefaultGarbage is the line FaultGarbage writes when no text is given.
const DefaultGarbage = "injected fault: this line is not JSON"

// OverloadedCode and OverloadedMessage are the app-server's answer when its queue
// is full.
const (
	OverloadedCode    = -32001
	OverloadedMessage = "server overloaded"
)

// ParseFault parses a rule written KIND[:METHOD[#N]][=VALUE], as --fault takes it.
func ParseFault(s string) (Fault, error) {
	bad := func(format string, a ...any) (Fault, error) {
		return Fault{}, fmt.Errorf("fault %q: %s: %w", s, fmt.Sprintf(format, a...), ErrBadFault)
	}
	spec, value, hasValue := strings.Cut(s, "=")
	kindName, sel, hasSel := strings.Cut(spec, ":")
	var f Fault
	for i, n := range faultNames {
		if n != "" && n == kindName {
			f.Kind = FaultKind(i)
		}
	}
	if f.Kind == 0 {
		return bad("unknown kind %q (want delay, drop, duplicate, reorder, eof, completed-early, overloaded or garbage)", kindName)
	}
	if hasSel {
		method, num, hasNum := strings.Cut(sel, "#")
		if method == "" {
			return bad("empty method")
		}
		f.Method = method
		if hasNum {
			n, err := strconv.Atoi(num)
			if err != nil || n < 1 {
				return bad("occurrence %q is not a number from 1", num)
			}
			f.N = n
		}
	}
	switch f.Kind {
	case FaultDelay:
		if !hasValue {
			return bad("needs a duration: delay:METHOD=250ms")
		}
		d, err := time.ParseDuration(value)
		if err != nil || d < 0 {
			return bad("duration %q: want e.g. 250ms or 2s", value)
		}
		f.Delay = d
	case FaultGarbage:
		if hasSel {
			return bad("garbage takes no method (garbage=TEXT)")
		}
		f.Text = DefaultGarbage
		if hasValue {
			if strings.ContainsAny(value, "\n\r") {
				return bad("the text must be one line")
			}
			f.Text = value
		}
		return f, nil
	case FaultEOF:
		if !hasSel {
			f.Method, f.N = "turn/started", 1
		}
	case FaultCompletedEarly:
		if hasSel && f.Method != "turn/start" {
			return bad("completed-early chooses a turn/start request (completed-early:turn/start#2)")
		}
		f.Method = "turn/start"
		if f.N == 0 {
			f.N = 1
		}
	case FaultOverloaded:
		if f.N == 0 {
			f.N = 1
		}
	}
	if hasValue && f.Kind != FaultDelay {
		return bad("%s takes no value", f.Kind)
	}
	if f.Method == "" {
		return bad("%s needs a method: %s:METHOD[#N]", f.Kind, f.Kind)
	}
	return f, nil
}

func (f Fault) String() string {
	s := f.Kind.String()
	if f.Method != "" {
		s += ":" + f.Method
		if f.N > 0 {
			s += "#" + strconv.Itoa(f.N)
		}
	}
	switch f.Kind {
	case FaultDelay:
		s += "=" + f.Delay.String()
	case FaultGarbage:
		if f.Text != DefaultGarbage {
			s += "=" + f.Text
		}
	}
	return s
}

// framePlan is what the fault rules do to one server frame.
type framePlan struct {
	skip      bool // dropped, or sent early by completed-early
	duplicate bool
	reorder   bool
	eof       bool
	delay     time.Duration
	before    int // a frame to send just before this one (completed-early), or -1
}

// planFaults assigns the server-frame rules to the frames they choose, counting
// occurrences in recorded order. unused lists the rules that choose nothing in this
// script (a misspelt method, a turn the recording does not have).
func planFaults(sc *Script, faults []Fault) (plans map[int]*framePlan, unused []Fault) {
	plans = map[int]*framePlan{}
	at := func(i int) *framePlan {
		p := plans[i]
		if p == nil {
			p = &framePlan{before: -1}
			plans[i] = p
		}
		return p
	}
	for _, f := range faults {
		chose := false
		switch f.Kind {
		case FaultGarbage:
			continue
		case FaultOverloaded:
			// Counted live, retries included; the script must at least hold N.
			n := 0
			for i := range sc.Client {
				if c := &sc.Client[i]; c.Msg.Kind == wire.KindRequest && c.Msg.Method == f.Method {
					n++
				}
			}
			if n < f.N {
				unused = append(unused, f)
			}
			continue
		case FaultCompletedEarly:
			n := 0
			for i := range sc.Server {
				sf := &sc.Server[i]
				if sf.Answers < 0 || sf.Msg.Method != "turn/start" {
					continue
				}
				if n++; n != f.N {
					continue
				}
				for j := i + 1; j < len(sc.Server); j++ {
					if c := &sc.Server[j]; c.Msg.Kind == wire.KindNotification && c.Msg.Method == "turn/completed" {
						at(i).before = j
						at(j).skip = true
						chose = true
						break
					}
				}
				break
			}
			if !chose {
				unused = append(unused, f)
			}
			continue
		}
		n := 0
		for i := range sc.Server {
			sf := &sc.Server[i]
			if sf.Dir != wire.ServerToClient || sf.Msg.Method != f.Method ||
				(sf.Msg.Kind != wire.KindNotification && sf.Msg.Kind != wire.KindRequest) {
				continue
			}
			n++
			if f.N != 0 && n != f.N {
				continue
			}
			chose = true
			p := at(i)
			switch f.Kind {
			case FaultDelay:
				p.delay += f.Delay
			case FaultDrop:
				p.skip = true
			case FaultDuplicate:
				p.duplicate = true
			case FaultReorder:
				p.reorder = true
			case FaultEOF:
				p.eof = true
			}
		}
		if !chose {
			unused = append(unused, f)
		}
	}
	return plans, unused
}
