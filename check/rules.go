package check

import (
	"fmt"
	"slices"
	"strings"
)

// Severity ranks a finding. The zero value is not a severity.
type Severity uint8

const (
	Info    Severity = iota + 1 // worth knowing, never fails a gate by default
	Warning                     // legal but a known trap for clients
	Error                       // the session broke the protocol or a client would break on it
)

var severityNames = [...]string{"", "info", "warning", "error"}

func (s Severity) String() string {
	if int(s) < len(severityNames) && s != 0 {
		return severityNames[s]
	}
	return fmt.Sprintf("severity(%d)", uint8(s))
}

// ParseSeverity is the inverse of Severity.String.
func ParseSeverity(s string) (Severity, error) {
	for i, n := range severityNames {
		if i > 0 && n == strings.ToLower(s) {
			return Severity(i), nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q (want info, warning or error)", s)
}

func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	*s = v
	return err
}

// Rule is one protocol-health rule. IDs are stable: CI configurations name them in
// --disable, and JUnit reports use them as test case names.
type Rule struct {
	ID       string
	Severity Severity // the default severity of its findings
	Summary  string   // one line: what the rule catches
}

// Rule ids. Schema findings keep the validator's rule name under the "schema/" prefix.
const (
	RuleUnanswered         = "unanswered"
	RuleDuplicateResponse  = "duplicate-response"
	RuleResponseNoRequest  = "response-without-request"
	RuleDuplicateID        = "duplicate-request-id"
	RuleErrorResponse      = "error-response"
	RuleAnswerShape        = "answer-shape"
	RuleTurnIncomplete     = "turn-incomplete"
	RuleTurnOrder          = "turn-order"
	RuleDuplicateCompleted = "duplicate-completion"
	RuleTurnFailed         = "turn-failed"
	RuleLateEvent          = "late-event"
	RuleEarlyCompletion    = "early-completion"
	RuleItemOrder          = "item-order"
	RuleItemAbandoned      = "item-abandoned"
	RuleDeltaWithoutItem   = "delta-without-item"
	RuleUnknownThread      = "unknown-thread"
	RuleForeignThread      = "foreign-thread"
	RuleUnresolved         = "unresolved-server-request"
	RuleStdoutNoise        = "stdout-noise"
	RuleClientNoise        = "client-noise"
	RuleInvalidUTF8        = "invalid-utf8"
	RuleANSI               = "ansi-escape"
	RuleServerExit         = "server-exit"
	RuleStderrError        = "stderr-error"
	RuleTruncated          = "truncated"
	RuleStructure          = "structure"
	RuleSchema             = "schema" // prefix: "schema/invalid", "schema/undeclared-field", ...
)

// Rules lists every rule in report order (a new slice each call).
func Rules() []Rule { return slices.Clone(rules) }

var rules = []Rule{
	{RuleUnanswered, Error, "a request (either direction) never got a response; says how long it waited"},
	{RuleDuplicateResponse, Error, "a request was answered more than once"},
	{RuleResponseNoRequest, Error, "a response carries an id that was never requested"},
	{RuleDuplicateID, Error, "a request reuses the id of a request still waiting for its answer"},
	{RuleErrorResponse, Warning, "a request was answered with a JSON-RPC error (code and message shown)"},
	{RuleAnswerShape, Error, "the client answered a server request with a result its method does not accept (schema)"},
	{RuleTurnIncomplete, Error, "a turn was started but never got its turn/completed"},
	{RuleTurnOrder, Error, "turn/started twice or after turn/completed, turn/completed or events for a turn never started"},
	{RuleDuplicateCompleted, Error, "a turn got more than one turn/completed"},
	{RuleTurnFailed, Warning, "a turn completed with status failed (its error shown)"},
	{RuleLateEvent, Error, "an item or turn event arrived for a turn after its turn/completed"},
	{RuleEarlyCompletion, Warning, "turn/completed arrived before the turn/start response (legal, a known client trap)"},
	{RuleItemOrder, Error, "an item was not started, then its deltas, then completed, each once"},
	{RuleItemAbandoned, Warning, "an item of an interrupted or steered turn never got item/completed (real Codex does this; a client trap)"},
	{RuleDeltaWithoutItem, Error, "an item delta or event names an item that was never started"},
	{RuleUnknownThread, Error, "a server message names a thread the session never started, resumed or forked"},
	{RuleForeignThread, Error, "an event of a turn carries another thread's id"},
	{RuleUnresolved, Error, "an approval or tool request was not followed by serverRequest/resolved"},
	{RuleStdoutNoise, Error, "a line on the server's stdout is blank, not JSON, or not JSON-RPC"},
	{RuleClientNoise, Warning, "a line the client sent is blank, not JSON, or not JSON-RPC"},
	{RuleInvalidUTF8, Error, "a line on the wire is not valid UTF-8, or a message escapes a lone UTF-16 surrogate"},
	{RuleANSI, Warning, "a JSON message carries ANSI escape sequences"},
	{RuleServerExit, Error, "the server exited with a non-zero code, by a signal, or could not start"},
	{RuleStderrError, Info, "ERROR lines on the server's stderr (counted, not failed)"},
	{RuleTruncated, Warning, "the recording has no trailer or its last line is torn: it was cut short"},
	{RuleStructure, Error, "the recording's structure is broken: seq not increasing, a trailer not at the end, two headers, trailer counts that disagree"},
	{RuleSchema, Error, "findings of schema validation (as package validate finds them), under schema/<rule>; severity per finding"},
	{RuleExpectMethod, Error, "assertion expect-method: a method the suite expects never appears"},
	{RuleForbidMethod, Error, "assertion forbid-method: a method the suite forbids appears"},
	{RuleMaxTurnDuration, Error, "assertion max-turn-duration: a turn took longer from turn/started to turn/completed"},
	{RuleExpectApproval, Error, "assertion expect-approval: the server never asked for an approval"},
}

// LookupRule returns the rule with id. A "schema/..." id returns the schema rule.
func LookupRule(id string) (Rule, bool) {
	if strings.HasPrefix(id, RuleSchema+"/") {
		id = RuleSchema
	}
	for _, r := range rules {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}

func defaultSeverity(id string) Severity {
	r, _ := LookupRule(id)
	return r.Severity
}
