package schema

import (
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/wire"
)

// Validator checks the frames of one session in order. It keeps the state a session
// carries: the requests awaiting an answer in each direction, and whether the client
// asked for the experimental API in initialize. The zero value is not usable; build one
// with NewValidator. A Validator is not safe for concurrent use (its Set is).
type Validator struct {
	set     *Set
	pairer  wire.Pairer
	expAPI  bool
	scratch []string
}

// NewValidator starts checking a session against s.
func NewValidator(s *Set) *Validator { return &Validator{set: s} }

// Set is the schema set the validator checks against.
func (v *Validator) Set() *Set { return v.set }

// ExperimentalAPI reports whether the client's initialize asked for the experimental API.
func (v *Validator) ExperimentalAPI() bool { return v.expAPI }

// Check validates one frame and returns its findings (nil when it is clean). Frames
// must come in session order, requests before their responses; stderr frames are
// ignored. Check classifies and pairs f.Line itself, so f.Msg may be empty.
func (v *Validator) Check(f *wire.Frame) []Finding {
	if f.Dir != wire.ClientToServer && f.Dir != wire.ServerToClient {
		return nil
	}
	msg := wire.Classify(f.Line)
	_, dup := v.pairer.PendingIDs(f.Dir)[msg.ID]
	dup = dup && msg.Kind == wire.KindRequest
	v.pairer.Observe(f.Dir, &msg)
	out := v.check(f, msg)
	if dup {
		out = append(out, Finding{Seq: f.Seq, Dir: f.Dir, Method: msg.Method, Rule: RuleDuplicateID, Pointer: "/id",
			Reason: fmt.Sprintf("reuses id %.40s of a request still waiting for its answer: answers cannot be told apart", string(msg.ID))})
	}
	return out
}

// CheckClassified is Check for a frame whose Msg the caller has already classified
// and paired in session order, as the proxy does for every frame it taps: the line
// is not scanned a second time. A session uses either Check or CheckClassified.
func (v *Validator) CheckClassified(f *wire.Frame) []Finding {
	return v.check(f, f.Msg)
}

func (v *Validator) check(f *wire.Frame, msg wire.Message) []Finding {
	if f.Dir != wire.ClientToServer && f.Dir != wire.ServerToClient {
		return nil
	}
	c := check{v: v, f: f, msg: msg, line: wire.Content(f.Line)}
	c.run()
	return c.out
}

// check is the work on one frame.
type check struct {
	v    *Validator
	f    *wire.Frame
	msg  wire.Message
	line []byte
	out  []Finding
	inst any
}

func (c *check) add(rule Rule, pointer, reason string) {
	c.out = append(c.out, Finding{Seq: c.f.Seq, Dir: c.f.Dir, Method: c.msg.Method, Rule: rule,
		Pointer: pointer, Reason: reason})
}

func (c *check) run() {
	s := c.v.set
	switch c.msg.Kind {
	case wire.KindRaw, wire.KindUnknown:
		c.add(RuleInvalid, "", "not a JSON-RPC message ("+c.msg.Reason+")")
	case wire.KindRequest, wire.KindNotification:
		m, ok := s.Method(c.f.Dir, c.msg.Kind, c.msg.Method)
		if !ok {
			c.unknown()
			return
		}
		if c.f.Dir == wire.ClientToServer && m.Name == "initialize" {
			c.v.expAPI = gjson.GetBytes(c.line, "params.capabilities.experimentalApi").Bool()
		}
		if m.Experimental && !c.v.expAPI && c.f.Dir == wire.ClientToServer {
			c.add(RuleExperimental, "/method", fmt.Sprintf("%s is experimental and the client did not ask for experimentalApi in initialize", m.Name))
		}
		c.validate(c.msg.Kind, &m)
	case wire.KindResponse, wire.KindError:
		if c.msg.Unpaired {
			c.add(RuleUnpairedResponse, "/id", fmt.Sprintf("answers id %s, which was never requested by the %s (or was already answered)", c.msg.ID, peer(c.f.Dir.Opposite())))
		}
		if c.msg.Kind == wire.KindError {
			c.validate(wire.KindError, nil)
			return
		}
		if c.msg.Unpaired {
			return
		}
		m, ok := s.Method(c.f.Dir.Opposite(), wire.KindRequest, c.msg.Method)
		if !ok || m.Result == "" {
			return // the request was reported already, or its result type is not derivable
		}
		c.validate(wire.KindResponse, &m)
	}
}

// unknown reports a method this version does not have as that kind from that side.
func (c *check) unknown() {
	s, name, dir := c.v.set, c.msg.Method, c.f.Dir
	other := wire.KindNotification
	if c.msg.Kind == wire.KindNotification {
		other = wire.KindRequest
	}
	switch _, asOther := s.Method(dir, other, name); {
	case asOther && c.msg.Kind == wire.KindRequest:
		c.add(RuleInvalid, "/id", fmt.Sprintf("%s is a notification but was sent as a request (it has an id)", name))
	case asOther:
		c.add(RuleInvalid, "", fmt.Sprintf("%s is a request but was sent as a notification (it has no id)", name))
	default:
		_, req := s.Method(dir.Opposite(), wire.KindRequest, name)
		_, note := s.Method(dir.Opposite(), wire.KindNotification, name)
		if req || note {
			c.add(RuleUnknownMethod, "/method", fmt.Sprintf("%s is sent by the %s, not the %s", name, peer(dir.Opposite()), peer(dir)))
			return
		}
		c.add(RuleUnknownMethod, "/method", fmt.Sprintf("codex %s has no %s %s %q", s.versionName(), peer(dir), c.msg.Kind, name))
	}
}

// validate checks the message against its route in the set the session may use, and
// walks it for undeclared members. Without experimentalApi the stable set is the
// reference; what only the experimental set allows or declares is an experimental
// finding rather than invalid or undeclared.
func (c *check) validate(kind wire.Kind, m *Method) {
	s := c.v.set
	if c.inst == nil && rawPath {
		// Most messages are clean, which the raw check tells from the bytes (raw.go);
		// the rest are decoded and checked in full below.
		if r := s.routeFor(c.mode(m), kind, m); r.err == nil && rawClean(r, c.line) {
			return
		}
	}
	if c.inst == nil {
		inst, err := decode(c.line)
		if err != nil {
			c.add(RuleInvalid, "", "cannot check: "+err.Error())
			return
		}
		c.inst = inst
	}
	// The client's messages are held to the stable set unless it opted in. The server
	// serializes its experimental fields (thread.environments, ...) whether or not the
	// client opted in, so what it sends is checked against the experimental set, which
	// contains the stable one.
	mode := c.mode(m)
	r := s.routeFor(mode, kind, m)
	if r.err != nil {
		c.add(RuleInvalid, "", "cannot check: "+oneLine(r.err.Error()))
		return
	}
	fast := fastValidate(r.fast, c.inst)
	if fastHook != nil {
		fastHook(s, r, c.inst, fast)
	}
	if fast != valid { // else certainly valid: nothing for jsonschema to report (fast.go)
		sch, err := s.compiledRoute(r)
		if err != nil {
			c.add(RuleInvalid, "", "cannot check: "+oneLine(err.Error()))
			return
		}
		if err := sch.Validate(c.inst); err != nil {
			ptr, reason := flatten(err)
			rule := RuleInvalid
			if mode == 0 && s.validIn(1, kind, m, c.inst) {
				rule, reason = RuleExperimental, reason+" (allowed only with experimentalApi)"
			}
			c.add(rule, ptr, reason)
		}
	}
	missing := undeclaredPre(c.inst, r.walk, r.top, c.v.scratch[:0])
	if len(missing) > 0 && mode == 0 {
		var exp map[string]bool
		if x := s.routeFor(1, kind, m); x.err == nil {
			exp = map[string]bool{}
			for _, p := range undeclaredPre(c.inst, x.walk, x.top, nil) {
				exp[p] = true
			}
		}
		for _, p := range missing {
			if exp != nil && !exp[p] && !coveredBy(p, exp) {
				c.add(RuleExperimental, p, "declared only in the experimental schema; the client did not ask for experimentalApi")
			} else {
				c.add(RuleUndeclaredField, p, fmt.Sprintf("not declared by the codex %s schema", s.versionName()))
			}
		}
	} else {
		for _, p := range missing {
			c.add(RuleUndeclaredField, p, fmt.Sprintf("not declared by the codex %s schema", s.versionName()))
		}
	}
	c.v.scratch = missing[:0]
}

// mode is the set a message is held to: 1, the experimental set, unless the client
// sends it without having asked for experimentalApi (see validate).
func (c *check) mode(m *Method) int {
	if c.v.expAPI || c.f.Dir == wire.ServerToClient || (m != nil && m.Experimental) {
		return 1
	}
	return 0
}

// validIn reports whether v is valid against the route in the other set.
func (s *Set) validIn(mode int, kind wire.Kind, m *Method, v any) bool {
	x := s.routeFor(mode, kind, m)
	if x.err != nil {
		return false
	}
	if fastValidate(x.fast, v) == valid {
		return true
	}
	sch, err := s.compiledRoute(x)
	return err == nil && sch.Validate(v) == nil
}

// coveredBy reports whether an ancestor of p is undeclared in exp (so p is too).
func coveredBy(p string, exp map[string]bool) bool {
	for i := len(p) - 1; i > 0; i-- {
		if p[i] == '/' && exp[p[:i]] {
			return true
		}
	}
	return false
}

func (s *Set) versionName() string {
	if s.version == "" {
		return "(schema dir)"
	}
	return s.version
}

func peer(d wire.Direction) string {
	if d == wire.ClientToServer {
		return "client"
	}
	return "server"
}
