package schema

import (
	"encoding/json"
	"unicode/utf8"
)

// The fast check answers one question about a route's schema (fastnode.go): is this
// value certainly valid? Almost every message on the wire is, and for those the
// library's validator (which allocates a frame per schema node and error trees for
// every failed alternative) is the dominant cost. It follows the library's own rules
// (draft-07, as validator.go in jsonschema/v6 implements them) for the keywords the
// generated Codex schemas use, and answers "unknown" for anything else. Only a
// "valid" answer is acted on; on "invalid" or "unknown" the message goes through
// jsonschema as before (compiling its route then, for an embedded set), so every
// finding still comes from the library, unchanged.

// fastHook, when set (by tests), sees every fast verdict with its route and value.
var fastHook func(s *Set, r *route, v any, fast verdict)

type verdict uint8

const (
	valid verdict = iota
	invalid
	unknown
)

// and is the verdict of both r and x holding: invalid if either is, else unknown if
// either is.
func (r verdict) and(x verdict) verdict {
	if r == invalid || x == invalid {
		return invalid
	}
	return max(r, x)
}

// maxHops bounds schema steps taken without descending into the value ($ref, allOf,
// ... chains), so a reference cycle answers unknown instead of recursing forever.
const maxHops = 64

func fastValidate(s *fnode, v any) verdict { return fastSchema(s, v, 0) }

func fastSchema(s *fnode, v any, hops int) verdict {
	if hops > maxHops || s.unsupported {
		return unknown
	}
	if s.boolean != nil {
		if *s.boolean {
			return valid
		}
		return invalid
	}
	if s.types != 0 {
		if r := fastType(s.types, v); r != valid {
			return r
		}
	}
	if s.constv != nil {
		if r := fastEquals(v, *s.constv); r != valid {
			return r
		}
	}
	if s.hasEnum {
		if r := fastEnum(s.enum, v); r != valid {
			return r
		}
	}
	if s.format != nil {
		if s.format.Validate(v) != nil {
			return invalid
		}
	}
	if s.ref != nil {
		// Before 2019-09, $ref replaces every keyword but the ones checked above
		// (jsonschema/v6 checks type, const, enum and format first).
		return fastSchema(s.ref, v, hops+1)
	}
	r := valid
	switch val := v.(type) {
	case map[string]any:
		r = fastObject(s, val)
	case []any:
		r = fastArray(s, val)
	case string:
		if s.minLength != nil || s.maxLength != nil {
			n := utf8.RuneCountInString(val)
			if s.minLength != nil && n < *s.minLength || s.maxLength != nil && n > *s.maxLength {
				return invalid
			}
		}
	case json.Number:
		r = fastNumber(s, val)
	}
	if r != valid {
		return r
	}
	return fastCond(s, v, hops)
}

func fastObject(s *fnode, obj map[string]any) verdict {
	for _, name := range s.required {
		if _, ok := obj[name]; !ok {
			return invalid
		}
	}
	if len(s.props) == 0 && s.addl == nil {
		return valid
	}
	r := valid
	for name, val := range obj {
		var x verdict
		if p, ok := s.props[name]; ok {
			x = fastSchema(p, val, 0)
		} else {
			switch add := s.addl.(type) {
			case nil:
				continue
			case bool:
				if add {
					continue
				}
				x = invalid
			case *fnode:
				x = fastSchema(add, val, 0)
			default:
				x = unknown
			}
		}
		if r = r.and(x); r == invalid {
			return invalid
		}
	}
	return r
}

func fastArray(s *fnode, arr []any) verdict { return elements(s, arr, fastSchema) }

// elements checks an array's elements (items, additionalItems) in three-valued
// logic, with check judging each element: fastSchema on decoded values, rawSchema on
// raw bytes.
func elements[V any](s *fnode, arr []V, check func(*fnode, V, int) verdict) verdict {
	r := valid
	evaluated := 0
	switch items := s.items.(type) {
	case nil:
	case *fnode:
		for _, e := range arr {
			if r = r.and(check(items, e, 0)); r == invalid {
				return invalid
			}
		}
		evaluated = len(arr)
	case []*fnode:
		evaluated = min(len(arr), len(items))
		for i, e := range arr[:evaluated] {
			if r = r.and(check(items[i], e, 0)); r == invalid {
				return invalid
			}
		}
	default:
		return unknown
	}
	switch add := s.addItems.(type) {
	case nil:
	case bool:
		if !add && evaluated != len(arr) {
			return invalid
		}
	case *fnode:
		for _, e := range arr[evaluated:] {
			if r = r.and(check(add, e, 0)); r == invalid {
				return invalid
			}
		}
	default:
		return unknown
	}
	return r
}

// fastCond is cond on decoded values.
func fastCond(s *fnode, v any, hops int) verdict { return cond(s, v, hops, fastSchema) }

// cond is not, allOf, anyOf, oneOf and if/then/else, in three-valued logic, with
// check judging v against each subschema: fastSchema on decoded values, rawSchema
// on raw bytes.
func cond[V any](s *fnode, v V, hops int, check func(*fnode, V, int) verdict) verdict {
	r := valid
	if s.not != nil {
		switch check(s.not, v, hops+1) {
		case valid:
			return invalid
		case unknown:
			r = unknown
		}
	}
	for _, a := range s.allOf {
		if r = r.and(check(a, v, hops+1)); r == invalid {
			return invalid
		}
	}
	if len(s.anyOf) > 0 {
		some := invalid
		for _, a := range s.anyOf {
			x := check(a, v, hops+1)
			if x == valid {
				some = valid
				break
			}
			if x == unknown {
				some = unknown
			}
		}
		if r = r.and(some); r == invalid {
			return invalid
		}
	}
	if len(s.oneOf) > 0 {
		matched, unsure := 0, false
		for _, a := range s.oneOf {
			switch check(a, v, hops+1) {
			case valid:
				matched++
			case unknown:
				unsure = true
			}
			if matched > 1 {
				return invalid
			}
		}
		switch {
		case unsure:
			r = unknown
		case matched == 0:
			return invalid
		}
	}
	if s.ifS != nil {
		var x verdict
		switch check(s.ifS, v, hops+1) {
		case valid:
			if s.then != nil {
				x = check(s.then, v, hops+1)
			}
		case invalid:
			if s.els != nil {
				x = check(s.els, v, hops+1)
			}
		default:
			x = unknown
		}
		if r = r.and(x); r == invalid {
			return invalid
		}
	}
	return r
}
