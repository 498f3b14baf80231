package check

import (
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/wire"
)

// schemaWait is how many frames wait for the Codex version (learned from the
// initialize response) before the Schema hook is asked without it: the same bound
// as every other validator's (schema's version policy).
const schemaWait = schema.MaxPending

type frameInfo struct {
	seq  int64
	dir  wire.Direction
	kind wire.Kind
}

// schemaState holds the frames seen before the validator could be chosen, and the
// findings recorded live, which are used only when no validator is.
type schemaState struct {
	decided  bool
	agent    string // the Codex version of the initialize response
	v        Validator
	waiting  []recorder.Entry
	held     int // bytes of the waiting frames' lines
	recorded []Finding
	last     frameInfo
}

func (s *state) schemaFrame(e *recorder.Entry, h recorder.Header) {
	s.schema.last = frameInfo{e.Seq, e.Dir, e.Msg.Kind}
	if s.schema.decided || s.c.Schema == nil {
		s.schema.decided = true
		if s.schema.v != nil {
			s.validate(e)
		}
		return
	}
	f := wire.Frame{Dir: e.Dir, Line: e.Line, Msg: e.Msg}
	if v := wire.CodexVersion(&f); v != "" {
		s.schema.agent = v
	} else if s.schema.held+len(e.Line) > schema.MaxPendingBytes {
		// As the recording's validator did: past the byte bound the policy decides
		// without the initialize response, and this frame is checked, not held.
		s.decideSchema(h)
		if s.schema.v != nil {
			s.validate(e)
		}
		return
	}
	s.schema.waiting = append(s.schema.waiting, *e)
	s.schema.held += len(e.Line)
	if s.schema.agent != "" || len(s.schema.waiting) >= schemaWait {
		s.decideSchema(h)
	}
}

func (s *state) decideSchema(h recorder.Header) {
	ss := &s.schema
	ss.decided = true
	if s.c.Schema != nil {
		// The version policy: the initialize response's version wins over the header's.
		if ss.agent != "" {
			h.CodexVersion = ss.agent
		}
		v, err := s.c.Schema(h)
		if err != nil {
			s.report(Finding{Rule: RuleSchema + "/unavailable", Severity: Warning, Message: "schema validation skipped: " + err.Error()})
		}
		ss.v = v
		if n, ok := v.(interface{ Version() string }); ok {
			s.res.SchemaVersion = n.Version()
		}
		if n, ok := v.(interface{ Note() string }); ok && n.Note() != "" {
			s.report(Finding{Rule: RuleSchema + "/nearest", Severity: Info, Message: n.Note()})
		}
	}
	if ss.v != nil {
		for i := range ss.waiting {
			s.validate(&ss.waiting[i])
		}
	} else {
		for _, f := range ss.recorded {
			s.report(f)
		}
	}
	ss.waiting, ss.recorded, ss.held = nil, nil, 0
}

func (s *state) validate(e *recorder.Entry) {
	for _, f := range s.schema.v.Frame(e) {
		s.report(schemaFinding(f, frameInfo{e.Seq, e.Dir, e.Msg.Kind}))
	}
}

// schemaFinding names a validator's finding in check's terms: an invalid answer of
// the client to a server request is its own rule, the rest keep their names.
func schemaFinding(f Finding, fr frameInfo) Finding {
	if len(f.Seqs) == 0 {
		f.Seqs = []int64{fr.seq}
	}
	if f.Rule == string(schema.RuleInvalid) && fr.dir == wire.ClientToServer && (fr.kind == wire.KindResponse || fr.kind == wire.KindError) {
		f.Rule = RuleAnswerShape
		f.Severity = Error
		f.Message = "the client's answer to " + f.Method + " does not fit its result schema: " + f.Message
		return f
	}
	f.Rule = RuleSchema + "/" + f.Rule
	return f
}

// recordedFinding takes a finding written into the recording during record.
func (s *state) recordedFinding(e *recorder.Entry) {
	if e.Rule == string(schema.RuleUnpairedResponse) {
		return // response-without-request says the same
	}
	sev, err := ParseSeverity(e.Severity)
	if err != nil {
		sev = Warning
		if e.Rule == string(schema.RuleInvalid) {
			sev = Error
		}
	}
	f := Finding{Rule: e.Rule, Severity: sev, Seqs: []int64{e.Seq}, Method: e.Msg.Method,
		Pointer: e.Pointer, Message: e.Reason}
	if e.Dir != 0 {
		f.Dir = e.Dir.String()
	}
	fr := frameInfo{seq: e.Seq, dir: e.Dir}
	if s.schema.last.seq == e.Seq {
		fr = s.schema.last
	}
	f = schemaFinding(f, fr)
	if s.schema.decided {
		if s.schema.v == nil {
			s.report(f)
		}
		return
	}
	s.schema.recorded = append(s.schema.recorded, f)
}

func (s *state) schemaFinish(h recorder.Header) {
	if !s.schema.decided {
		s.decideSchema(h)
	}
}
