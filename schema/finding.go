package schema

import (
	"errors"
	"fmt"
	"github.com/codexrec/codexrec/internal/jsonx"
	"strings"
	"unicode/utf8"

	"github.com/codexrec/codexrec/internal/jsonschema"
	"github.com/codexrec/codexrec/internal/jsonschema/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/codexrec/codexrec/wire"
)

// Rule names what kind of problem a finding is.
type Rule string

const (
	RuleInvalid          Rule = "invalid"           // violates the schema
	RuleUnknownMethod    Rule = "unknown-method"    // not a method of this version, or sent the wrong way
	RuleUnpairedResponse Rule = "unpaired-response" // answers an id never requested
	RuleUndeclaredField  Rule = "undeclared-field"  // on the wire, declared nowhere at that position
	RuleExperimental     Rule = "experimental"      // experimental method or field without experimentalApi
	RuleDuplicateID      Rule = "duplicate-id"      // a request reuses the id of one still unanswered
)

// Severity is "error" for messages the version's protocol does not allow and "warning"
// for what it allows but does not describe (a newer Codex, an experimental feature).
type Severity string

const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Severity of the rule.
func (r Rule) Severity() Severity {
	switch r {
	case RuleUndeclaredField, RuleExperimental:
		return SeverityWarning
	}
	return SeverityError
}

// Finding is one problem in one frame.
type Finding struct {
	Seq     int64
	Dir     wire.Direction
	Method  string // the message's method, or for a response the method it answers
	Rule    Rule
	Pointer string // RFC 6901 pointer into the message ("" is the whole message)
	Reason  string // one line
}

func (f Finding) String() string {
	p := f.Pointer
	if p == "" {
		p = "/"
	}
	m := f.Method
	if m == "" {
		m = "-"
	}
	return fmt.Sprintf("%d %s %s %s %s: %s", f.Seq, f.Dir, m, f.Rule, p, f.Reason)
}

var printer = message.NewPrinter(language.English)

// flatten turns a jsonschema validation error into the single most specific problem:
// the deepest failing location, or, when the alternatives of a oneOf/anyOf all fail
// equally deep, the oneOf itself (never the whole tree of alternatives).
func flatten(err error) (pointer, reason string) {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return "", oneLine(err.Error())
	}
	leaf := best(ve)
	pointer = jsonx.Pointer(leaf.InstanceLocation...)
	switch k := leaf.ErrorKind.(type) {
	case *kind.Required:
		if len(k.Missing) > 0 {
			return pointer + "/" + jsonx.EscapeToken(k.Missing[0]), fmt.Sprintf("missing required field %q", k.Missing[0])
		}
	case *kind.OneOf, *kind.AnyOf:
		if got, want, ok := typeAlternatives(leaf); ok {
			return pointer, fmt.Sprintf("wrong type: got %s, want %s", got, strings.Join(want, " or "))
		}
		return pointer, fmt.Sprintf("matches none of the %d alternatives", len(leaf.Causes))
	case *kind.Type:
		return pointer, fmt.Sprintf("wrong type: got %s, want %s", k.Got, strings.Join(k.Want, " or "))
	case *kind.Format:
		// The value itself stays out of the reason: it could be a secret.
		return pointer, fmt.Sprintf("not a valid %s: %v", k.Want, k.Err)
	case *kind.Pattern:
		return pointer, fmt.Sprintf("does not match the pattern %s", k.Want)
	}
	return pointer, oneLine(leaf.ErrorKind.LocalizedString(printer))
}

// best descends to the most specific cause; the returned error's depth is the length
// of its InstanceLocation.
func best(e *jsonschema.ValidationError) *jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return e
	}
	var top *jsonschema.ValidationError
	depth, ties := -1, 0
	for _, c := range e.Causes {
		b := best(c)
		d := len(b.InstanceLocation)
		switch {
		case d > depth:
			top, depth, ties = b, d, 1
		case d == depth:
			ties++
		}
	}
	switch e.ErrorKind.(type) {
	case *kind.OneOf, *kind.AnyOf:
		if ties > 1 {
			return e
		}
	}
	return top
}
func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	const max = 200
	if len(s) > max {
		n := max
		for n > 0 && !utf8.RuneStart(s[n]) {
			n-- // never cut a character in two: a finding must stay valid UTF-8
		}
		s = s[:n] + "..."
	}
	return s
}

// typeAlternatives reports alternatives that all failed on the value's type alone
// (a nullable reference: {"anyOf": [{"$ref": X}, {"type": "null"}]}), as one type error.
func typeAlternatives(e *jsonschema.ValidationError) (got string, want []string, ok bool) {
	for _, c := range e.Causes {
		b := best(c)
		if len(b.InstanceLocation) != len(e.InstanceLocation) {
			return "", nil, false
		}
		switch k := b.ErrorKind.(type) {
		case *kind.Type:
			got = k.Got
			want = append(want, k.Want...)
		case *kind.OneOf, *kind.AnyOf:
			g, w, ok := typeAlternatives(b)
			if !ok {
				return "", nil, false
			}
			got, want = g, append(want, w...)
		default:
			return "", nil, false
		}
	}
	return got, want, len(want) > 0
}
