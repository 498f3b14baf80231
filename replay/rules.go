package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/codexrec/codexrec/internal/jsonx"
	"github.com/codexrec/codexrec/wire"
)

// Match rules narrow what the match mode compares, for one method or for all: the
// values an Ignore pattern names are left out of both messages, and when MatchOnly
// patterns are given, only the values they name are compared. Patterns are JSON
// pointers relative to the whole message ("/params/input/*/text"), "*" standing for
// any one member name or array index and "**" for any number of segments. The mode
// (strict, params, method) then compares what is left, as it would without rules.

// RuleKind says what a Rule does with the values its pattern names.
type RuleKind uint8

const (
	// RuleIgnore leaves the values out of the comparison.
	RuleIgnore RuleKind = iota
	// RuleMatchOnly compares only the values named by match-only rules.
	RuleMatchOnly
)

func (k RuleKind) String() string {
	if k == RuleMatchOnly {
		return "match-only"
	}
	return "ignore"
}

// Rule is one match rule: a pattern, what to do with it, and the method it applies
// to ("" for every message; for an answer to a server request, the request's method).
type Rule struct {
	Kind    RuleKind
	Method  string
	Pointer string
}

// String renders the rule as ParseRule reads it: "[METHOD:]POINTER".
func (r Rule) String() string {
	if r.Method == "" {
		return r.Pointer
	}
	return r.Method + ":" + r.Pointer
}

// Option renders the rule as the setting a diagnosis names: OptionRule, its kind
// and the rule ("Rules: ignore turn/start:/params/input").
func (r Rule) Option() string { return OptionRule + r.Kind.String() + " " + r.String() }

// ParseRule reads "POINTER" (every method) or "METHOD:POINTER" (one method): a
// pointer starts with '/', a method does not.
func ParseRule(kind RuleKind, s string) (Rule, error) {
	r := Rule{Kind: kind, Pointer: s}
	if !strings.HasPrefix(s, "/") {
		if m, ptr, ok := strings.Cut(s, ":"); ok && strings.HasPrefix(strings.TrimSpace(ptr), "/") {
			r.Method, r.Pointer = strings.TrimSpace(m), strings.TrimSpace(ptr)
		}
	}
	if _, err := jsonx.ParseGlob(r.Pointer); err != nil {
		return Rule{}, fmt.Errorf("%s rule %q: %w", kind, s, err)
	}
	return r, nil
}

// compiledRule is a Rule with its pattern parsed.
type compiledRule struct {
	Rule
	glob jsonx.Glob
}

// ruleSet is a list of rules ready to apply.
type ruleSet []compiledRule

func compileRules(rules []Rule) (ruleSet, error) {
	out := make(ruleSet, 0, len(rules))
	for _, r := range rules {
		g, err := jsonx.ParseGlob(r.Pointer)
		if err != nil {
			return nil, fmt.Errorf("%s rule %q: %w", r.Kind, r.String(), err)
		}
		out = append(out, compiledRule{r, g})
	}
	return out, nil
}

// RulesMatcher returns base with rules applied: each message has the values the
// rules name left out (or all but those, for match-only rules) before base compares
// them. base nil is MatchParams.
func RulesMatcher(rules []Rule, base MatcherFunc) (MatcherFunc, error) {
	rs, err := compileRules(rules)
	if err != nil {
		return nil, err
	}
	if base == nil {
		base = MatchParams
	}
	if len(rs) == 0 {
		return base, nil
	}
	return func(got, want Message) bool {
		if !MatchMethod(got, want) {
			return false
		}
		return base(rs.apply(got), rs.apply(want))
	}, nil
}

// applies returns the ignore and match-only patterns that apply to a message.
func (rs ruleSet) applies(m wire.Message) (ignore, only []jsonx.Glob) {
	for _, r := range rs {
		if r.Method != "" && r.Method != m.Method {
			continue
		}
		if r.Kind == RuleMatchOnly {
			only = append(only, r.glob)
		} else {
			ignore = append(ignore, r.glob)
		}
	}
	return ignore, only
}

// apply is m with what the rules leave out removed; m itself when no rule applies or
// m is not a JSON object.
func (rs ruleSet) apply(m Message) Message {
	ignore, only := rs.applies(m.Msg)
	if len(ignore) == 0 && len(only) == 0 {
		return m
	}
	content := wire.Content(m.Line)
	if len(content) == 0 || content[0] != '{' {
		return m
	}
	v, ok := decode(content)
	if !ok {
		return m
	}
	var path []string
	if len(only) > 0 {
		v = project(v, only, path)
	}
	v = prune(v, ignore, path)
	b, err := marshalPlain(v)
	if err != nil {
		return m
	}
	return Message{Msg: m.Msg, Line: b}
}

// prune removes the members and elements the patterns match.
func prune(v any, pats []jsonx.Glob, path []string) any {
	if len(pats) == 0 {
		return v
	}
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			p := append(path, k)
			if matchAny(pats, p) {
				delete(t, k)
				continue
			}
			t[k] = prune(c, pats, p)
		}
	case []any:
		out := t[:0]
		for i, c := range t {
			p := append(path, strconv.Itoa(i))
			if matchAny(pats, p) {
				continue
			}
			out = append(out, prune(c, pats, p))
		}
		return out
	}
	return v
}

// project keeps only the values the patterns match and the members on the way to
// them; array elements keep their positions (null stands in for one left out).
func project(v any, pats []jsonx.Glob, path []string) any {
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			p := append(path, k)
			switch {
			case matchAny(pats, p):
			case prefixAny(pats, p):
				t[k] = project(c, pats, p)
			default:
				delete(t, k)
			}
		}
	case []any:
		for i, c := range t {
			p := append(path, strconv.Itoa(i))
			switch {
			case matchAny(pats, p):
			case prefixAny(pats, p):
				t[i] = project(c, pats, p)
			default:
				t[i] = nil
			}
		}
	}
	return v
}

func matchAny(pats []jsonx.Glob, path []string) bool {
	for _, g := range pats {
		if g.Match(path) {
			return true
		}
	}
	return false
}

func prefixAny(pats []jsonx.Glob, path []string) bool {
	for _, g := range pats {
		if g.Prefix(path) {
			return true
		}
	}
	return false
}

// marshalPlain encodes v without HTML escaping, so that "<cwd>" stays as it is.
func marshalPlain(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// ruleSuggestion is the ignore rule that would have accepted got in place of want,
// generalised (array indices become "*"), or "" when none would: the differences
// listed by diff are tried as rules for got's method on top of the session's.
func (s *session) ruleSuggestion(got, want Message, diff []string) string {
	var cand []Rule
	seen := map[string]bool{}
	for _, d := range diff {
		i := strings.Index(d, ": ")
		if !strings.HasPrefix(d, "/") || i < 0 {
			return "" // truncated: a rule for what is listed would not be enough
		}
		ptr := generalize(d[:i])
		if !seen[ptr] {
			seen[ptr] = true
			cand = append(cand, Rule{Kind: RuleIgnore, Method: got.Msg.Method, Pointer: ptr})
		}
	}
	if len(cand) == 0 || len(cand) > 3 {
		return ""
	}
	m, err := RulesMatcher(append(append([]Rule(nil), s.srv.Rules...), cand...), s.baseMatcher())
	if err != nil || !m(got, want) {
		return ""
	}
	flags := make([]string, len(cand))
	for i, r := range cand {
		flags[i] = s.option(r.Option())
	}
	return strings.Join(flags, " ") + " (leave these values out when matching " + got.Msg.Method + ")"
}

// generalize turns the array indices of a pointer into "*".
func generalize(ptr string) string {
	segs := strings.Split(ptr, "/")
	for i, s := range segs {
		if _, err := strconv.Atoi(s); err == nil && s != "" {
			segs[i] = "*"
		}
	}
	return strings.Join(segs, "/")
}

// baseMatcher is the matcher without the session's rules.
func (s *session) baseMatcher() MatcherFunc {
	if s.srv.Matcher != nil {
		return s.srv.Matcher
	}
	return s.srv.Mode.Matcher()
}

// ruled is m as the session's rules compare it (for diagnostics).
func (s *session) ruled(m Message) Message {
	if len(s.rules) == 0 {
		return m
	}
	return s.rules.apply(m)
}

// withRules compiles the server's rules into the session's matcher.
func (s *session) withRules() {
	rs, err := compileRules(s.srv.Rules)
	if err != nil || len(rs) == 0 {
		return // Serve has refused bad rules already
	}
	s.rules = rs
	base := s.match
	s.match = func(got, want Message) bool {
		return MatchMethod(got, want) && base(rs.apply(got), rs.apply(want))
	}
}

// ParseRules parses each spec with ParseRule, in order.
func ParseRules(kind RuleKind, specs []string) ([]Rule, error) {
	out := make([]Rule, 0, len(specs))
	for _, s := range specs {
		r, err := ParseRule(kind, s)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}
