// Package check runs protocol-health rules over a codexrec recording: requests
// answered exactly once, turns and items in a sane order, events on the right thread,
// server requests resolved, a clean stdout and server exit, plus schema findings.
// It streams the recording through recorder.NewReader and keeps only what is still
// open (requests, turns, items), so its memory does not grow with the recording;
// it does not modify recordings or talk to a server.
package check

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// Finding is one rule broken at one place in a recording.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// Seqs are the frames involved, the one where the problem shows first.
	Seqs    []int64 `json:"seqs,omitempty"`
	Segment int     `json:"segment,omitempty"`
	Dir     string  `json:"dir,omitempty"`
	Method  string  `json:"method,omitempty"`
	ID      string  `json:"id,omitempty"` // the JSON-RPC request id as on the wire
	Thread  string  `json:"thread,omitempty"`
	Turn    string  `json:"turn,omitempty"`
	Item    string  `json:"item,omitempty"`
	Pointer string  `json:"pointer,omitempty"` // JSON pointer into the message (schema findings)
	Message string  `json:"message"`
}

// Result is what checking one recording found.
type Result struct {
	File         string `json:"file"`
	CodexVersion string `json:"codexVersion,omitempty"`
	// SchemaVersion is the embedded schema the frames were validated against (schema's
	// version policy), empty when they were not.
	SchemaVersion string `json:"schemaVersion,omitempty"`
	Frames        int64  `json:"frames"`
	Segments      int    `json:"segments"`
	Turns         int    `json:"turns"`
	// TurnStatus counts the turns by the final status their turn/completed gave
	// ("completed", "interrupted", "failed"); turns never completed are not counted.
	TurnStatus map[string]int `json:"turnStatus,omitempty"`
	Findings   []Finding      `json:"findings"`
	// Elided counts the findings not listed in Findings: past ExampleLimit of one
	// rule and method, only the first are kept.
	Elided []Elided `json:"elided,omitempty"`
	// Asserted lists the assertion rules that were set (Assertions.AssertionRules):
	// reports show an assertion only when it was.
	Asserted []string `json:"asserted,omitempty"`
}

// Count returns how many findings have severity at least min.
func (r *Result) Count(min Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity >= min {
			n++
		}
	}
	for _, e := range r.Elided {
		if e.Severity >= min {
			n += e.Count
		}
	}
	return n
}

// Checker runs the rules. The zero value runs every rule with its default severity
// and, without a Schema hook, reports the schema findings already in the recording.
type Checker struct {
	// Disable holds rule ids not to report. "schema" disables every schema/... finding.
	Disable map[string]bool

	// Severity overrides rules' default severities ("stderr-error": Error makes ERROR
	// lines on stderr fail the gate). "schema" sets every schema/... finding's.
	Severity map[string]Severity

	// Schema, when set, is asked once per recording (with the header as known after the
	// initialize response, or at the end) for a validator; its findings replace the
	// ones recorded live. Returning nil, nil falls back to the recorded findings.
	Schema func(h recorder.Header) (Validator, error)

	// OnFinding, when set, sees each finding as soon as it is known, before Check
	// returns, including those the Result only counts (Result.Elided).
	OnFinding func(Finding)

	// Assert holds the suite's own assertions (assert.go).
	Assert Assertions
}

// Validator validates frames in recording order, keeping whatever state it needs
// (request pairing). Implementations live with the schema package.
type Validator interface {
	Frame(e *recorder.Entry) []Finding
}

// ErrInput wraps every error about input that cannot be read as a recording.
var ErrInput = errors.New("unreadable recording")

// CheckFile checks the recording at path.
func (c *Checker) CheckFile(path string) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%w: %s is a directory with no .jsonl recording", ErrInput, path)
	}
	return c.Check(f, path)
}

// Check reads a recording from r (name is used in errors and the result) and runs
// every enabled rule over it in one pass.
func (c *Checker) Check(r io.Reader, name string) (*Result, error) {
	rd, err := recorder.NewReader(r, name)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	s := newState(c, name)
	for e, err := range rd.Entries() {
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInput, err)
		}
		s.entry(&e, rd.Header())
	}
	s.finish(rd.Header(), rd.Trailer())
	s.problems(rd.Problems())
	res := s.res
	res.CodexVersion = rd.Header().CodexVersion
	res.Asserted = c.Assert.AssertionRules()
	slices.SortStableFunc(res.Findings, func(a, b Finding) int {
		return cmp.Compare(firstSeq(a), firstSeq(b))
	})
	return res, nil
}

func firstSeq(f Finding) int64 {
	if len(f.Seqs) == 0 {
		return 1 << 62 // findings about the whole recording go last
	}
	return f.Seqs[0]
}

// state is everything one pass keeps: only what is still open, plus bounded
// memories of what recently closed (to tell a duplicate from a stranger).
type state struct {
	c   *Checker
	res *Result

	segment  int
	segOpen  bool
	lastTime time.Duration
	exits    int

	req     requests
	threads threads
	schema  schemaState
	asserts asserts
	elide   elider
}

func newState(c *Checker, name string) *state {
	s := &state{c: c, res: &Result{File: name, Findings: []Finding{}}, segment: 1, segOpen: true}
	s.req.init()
	s.threads.init()
	return s
}

func (s *state) report(f Finding) {
	schemaRule := strings.HasPrefix(f.Rule, RuleSchema+"/")
	if s.c.Disable[f.Rule] || schemaRule && s.c.Disable[RuleSchema] {
		return
	}
	if f.Severity == 0 {
		f.Severity = defaultSeverity(f.Rule)
	}
	if sev, ok := s.c.Severity[f.Rule]; ok {
		f.Severity = sev
	} else if sev, ok := s.c.Severity[RuleSchema]; ok && schemaRule {
		f.Severity = sev
	}
	if f.Segment == 0 && s.segment > 1 {
		f.Segment = s.segment
	}
	if s.elide.keep(s.res, &f) {
		s.res.Findings = append(s.res.Findings, f)
	}
	if s.c.OnFinding != nil {
		s.c.OnFinding(f)
	}
}

func (s *state) entry(e *recorder.Entry, h recorder.Header) {
	if e.Time > s.lastTime {
		s.lastTime = e.Time
	}
	switch e.Type {
	case recorder.TypeFrame:
		s.res.Frames++
		s.assertFrame(e)
		s.frame(e, h)
	case recorder.TypeSegment:
		// A capture opens every lifetime with a segment entry; only a second one is a restart.
		if e.Segment > 1 || s.exits > 0 {
			s.endSegment(e.Time, "the server was restarted")
			s.segment = max(e.Segment, s.segment+1)
			s.segOpen = true
		}
	case recorder.TypeExit:
		s.exits++
		s.exit(e)
		s.endSegment(e.Time, "the server exited")
	case recorder.TypeFinding:
		s.recordedFinding(e)
	}
}

func (s *state) frame(e *recorder.Entry, h recorder.Header) {
	s.schemaFrame(e, h)
	switch e.Dir {
	case wire.Stderr:
		s.stderr(e)
		return
	}
	if !e.Msg.Kind.IsJSON() || e.Msg.Kind == wire.KindUnknown {
		s.noise(e)
		return
	}
	msg := e.JSON()
	s.escapes(e, msg)
	switch e.Msg.Kind {
	case wire.KindRequest:
		s.request(e, msg)
	case wire.KindResponse, wire.KindError:
		s.response(e, msg)
	case wire.KindNotification:
		if e.Dir == wire.ServerToClient {
			s.notification(e, msg)
		}
	}
}

// endSegment closes a server lifetime: what is still open can no longer be answered.
func (s *state) endSegment(at time.Duration, why string) {
	if !s.segOpen {
		return
	}
	s.segOpen = false
	s.req.end(s, at, why)
	s.threads.end(s, why)
}

func (s *state) finish(h recorder.Header, t *recorder.Trailer) {
	s.schemaFinish(h)
	why := "the recording ended"
	if t == nil {
		why = "the recording was cut short"
		s.report(Finding{Rule: RuleTruncated, Message: "no trailer: the recording was cut short (the proxy was killed?)"})
	}
	s.endSegment(s.lastTime, why)
	if t != nil {
		s.trailerExit(t, s.exits > 0)
	}
	s.res.Segments = s.segment
	s.assertFinish()
}

// problems reports the reader's structural problems. A torn last line adds its
// detail to the truncated finding.
func (s *state) problems(ps []recorder.Problem) {
	for _, p := range ps {
		f := Finding{Rule: RuleStructure, Message: fmt.Sprintf("line %d: %s: %s", p.Line, p.Kind, p.Message)}
		if p.Seq > 0 {
			f.Seqs = []int64{p.Seq}
		}
		if p.Kind == recorder.ProblemTruncated {
			f.Rule = RuleTruncated
		}
		s.report(f)
	}
}

// view is msg as a string without a copy, for gjson: a frame's bytes are never
// modified once read, and every string kept beyond the frame is cloned.
func view(msg []byte) string { return unsafe.String(unsafe.SliceData(msg), len(msg)) }
