package check

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// Assertions are what a suite expects of its own sessions, beyond protocol health:
// methods that must or must not appear, how long a turn may take, an approval that
// must be asked. Each is a rule with an id (RuleExpectMethod...), reported, disabled
// and re-levelled like the others; the zero value asserts nothing.
type Assertions struct {
	// ExpectMethods must each appear at least once, as a request or notification in
	// either direction.
	ExpectMethods []string
	// ForbidMethods must never appear.
	ForbidMethods []string
	// MaxTurnDuration bounds the time from turn/started to turn/completed; 0, none.
	MaxTurnDuration time.Duration
	// ExpectApproval: the server must ask the client for at least one approval.
	ExpectApproval bool
}

// Assertion rule ids.
const (
	RuleExpectMethod    = "expect-method"
	RuleForbidMethod    = "forbid-method"
	RuleMaxTurnDuration = "max-turn-duration"
	RuleExpectApproval  = "expect-approval"
)

// AssertionRules lists the ids of the assertions a is set for, in report order.
func (a Assertions) AssertionRules() []string {
	var out []string
	if len(a.ExpectMethods) > 0 {
		out = append(out, RuleExpectMethod)
	}
	if len(a.ForbidMethods) > 0 {
		out = append(out, RuleForbidMethod)
	}
	if a.MaxTurnDuration > 0 {
		out = append(out, RuleMaxTurnDuration)
	}
	if a.ExpectApproval {
		out = append(out, RuleExpectApproval)
	}
	return out
}

// IsAssertion reports whether id is an assertion rule, reported only when set.
func IsAssertion(id string) bool {
	switch id {
	case RuleExpectMethod, RuleForbidMethod, RuleMaxTurnDuration, RuleExpectApproval:
		return true
	}
	return false
}

// asserts is one pass's assertion state.
type asserts struct {
	seen      map[string]bool
	turnStart map[string]startAt
	approvals int
}

type startAt struct {
	seq int64
	t   time.Duration
}

// assertFrame records what the assertions need of a frame and reports a forbidden
// method where it appears.
func (s *state) assertFrame(e *recorder.Entry) {
	a := &s.c.Assert
	if e.Type != recorder.TypeFrame || e.Dir == wire.Stderr {
		return
	}
	k := e.Msg.Kind
	if k != wire.KindRequest && k != wire.KindNotification {
		return
	}
	m := e.Msg.Method
	st := &s.asserts
	if st.seen == nil {
		st.seen, st.turnStart = map[string]bool{}, map[string]startAt{}
	}
	if slices.Contains(a.ForbidMethods, m) {
		s.report(Finding{Rule: RuleForbidMethod, Seqs: []int64{e.Seq}, Dir: e.Dir.String(), Method: m, ID: string(e.Msg.ID),
			Message: fmt.Sprintf("%s %s, a forbidden method", e.Msg.Kind, m)})
	}
	st.seen[m] = true
	if e.Dir == wire.ServerToClient && k == wire.KindRequest && strings.Contains(strings.ToLower(m), "approval") {
		st.approvals++
	}
	if a.MaxTurnDuration <= 0 || e.Dir != wire.ServerToClient || k != wire.KindNotification {
		return
	}
	switch m {
	case "turn/started", "turn/completed":
	default:
		return
	}
	turn := gjson.GetBytes(wire.Content(e.Line), "params.turn.id").Str
	if turn == "" {
		return
	}
	if m == "turn/started" {
		st.turnStart[turn] = startAt{e.Seq, e.Time}
		return
	}
	start, ok := st.turnStart[turn]
	if !ok {
		return
	}
	delete(st.turnStart, turn)
	if d := e.Time - start.t; d > a.MaxTurnDuration {
		s.report(Finding{Rule: RuleMaxTurnDuration, Seqs: []int64{start.seq, e.Seq}, Turn: turn,
			Message: fmt.Sprintf("the turn took %s from turn/started to turn/completed, more than %s", d.Round(time.Millisecond), a.MaxTurnDuration)})
	}
}

// assertFinish reports what never came.
func (s *state) assertFinish() {
	a := &s.c.Assert
	for _, m := range a.ExpectMethods {
		if !s.asserts.seen[m] {
			s.report(Finding{Rule: RuleExpectMethod, Method: m, Message: fmt.Sprintf("%s never appears in the session", m)})
		}
	}
	if a.ExpectApproval && s.asserts.approvals == 0 {
		s.report(Finding{Rule: RuleExpectApproval, Message: "the server never asked the client for an approval"})
	}
}
