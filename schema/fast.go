package schema

import (
	"encoding/json"
	"math/big"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
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

// typeBit is the bit a jsonschema.Types value holds for each type name.
var typeBit = func() map[string]jsonschema.Types {
	m := map[string]jsonschema.Types{}
	for _, n := range [...]string{"null", "boolean", "number", "integer", "string", "array", "object"} {
		var t jsonschema.Types
		t.Add(n)
		m[n] = t
	}
	return m
}()

var (
	nullBit, boolBit, numBit, intBit = typeBit["null"], typeBit["boolean"], typeBit["number"], typeBit["integer"]
	strBit, arrBit, objBit           = typeBit["string"], typeBit["array"], typeBit["object"]
)

func fastType(t jsonschema.Types, v any) verdict {
	var want jsonschema.Types
	switch v.(type) {
	case nil:
		want = nullBit
	case bool:
		want = boolBit
	case string:
		want = strBit
	case []any:
		want = arrBit
	case map[string]any:
		want = objBit
	case json.Number:
		want = numBit
	default:
		return unknown
	}
	if t&want != 0 {
		return valid
	}
	if want == numBit && t&intBit != 0 && isIntegerNumber(v.(json.Number)) {
		return valid
	}
	return invalid
}

// isIntegerNumber is jsonschema's isInteger (a big.Rat that is an integer), without
// the big.Rat for the usual case of plain digits.
func isIntegerNumber(n json.Number) bool {
	if plainInteger(string(n)) {
		return true
	}
	r, ok := new(big.Rat).SetString(string(n))
	return ok && r.IsInt()
}

// plainInteger reports "-?[0-9]+".
func plainInteger(s string) bool {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func fastNumber(s *fnode, n json.Number) verdict {
	if s.minimum == nil && s.maximum == nil {
		return valid
	}
	// A non-negative integer meets every minimum that is not positive.
	simple := plainInteger(string(n)) && n[0] != '-'
	if s.minimum != nil && !(simple && s.minimum.Sign() <= 0) {
		r, ok := new(big.Rat).SetString(string(n))
		if !ok {
			return unknown
		}
		if r.Cmp(s.minimum) < 0 {
			return invalid
		}
	}
	if s.maximum != nil {
		r, ok := new(big.Rat).SetString(string(n))
		if !ok {
			return unknown
		}
		if r.Cmp(s.maximum) > 0 {
			return invalid
		}
	}
	return valid
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
		switch x {
		case invalid:
			return invalid
		case unknown:
			r = unknown
		}
	}
	return r
}

func fastArray(s *fnode, arr []any) verdict {
	r := valid
	merge := func(x verdict) bool {
		if x == invalid {
			r = invalid
			return false
		}
		if x == unknown {
			r = unknown
		}
		return true
	}
	evaluated := 0
	switch items := s.items.(type) {
	case nil:
	case *fnode:
		for _, e := range arr {
			if !merge(fastSchema(items, e, 0)) {
				return r
			}
		}
		evaluated = len(arr)
	case []*fnode:
		evaluated = min(len(arr), len(items))
		for i, e := range arr[:evaluated] {
			if !merge(fastSchema(items[i], e, 0)) {
				return r
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
			if !merge(fastSchema(add, e, 0)) {
				return r
			}
		}
	default:
		return unknown
	}
	return r
}

// fastCond is not, allOf, anyOf, oneOf and if/then/else, in three-valued logic.
func fastCond(s *fnode, v any, hops int) verdict {
	r := valid
	if s.not != nil {
		switch fastSchema(s.not, v, hops+1) {
		case valid:
			return invalid
		case unknown:
			r = unknown
		}
	}
	for _, a := range s.allOf {
		switch fastSchema(a, v, hops+1) {
		case invalid:
			return invalid
		case unknown:
			r = unknown
		}
	}
	if len(s.anyOf) > 0 {
		some := invalid
		for _, a := range s.anyOf {
			x := fastSchema(a, v, hops+1)
			if x == valid {
				some = valid
				break
			}
			if x == unknown {
				some = unknown
			}
		}
		switch some {
		case invalid:
			return invalid
		case unknown:
			r = unknown
		}
	}
	if len(s.oneOf) > 0 {
		matched, unsure := 0, false
		for _, a := range s.oneOf {
			switch fastSchema(a, v, hops+1) {
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
		switch fastSchema(s.ifS, v, hops+1) {
		case valid:
			if s.then != nil {
				x = fastSchema(s.then, v, hops+1)
			}
		case invalid:
			if s.els != nil {
				x = fastSchema(s.els, v, hops+1)
			}
		default:
			x = unknown
		}
		switch x {
		case invalid:
			return invalid
		case unknown:
			r = unknown
		}
	}
	return r
}

// fastEnum: v equals one of the values (an unsure comparison makes the answer unsure
// only if no value is certainly equal).
func fastEnum(values []any, v any) verdict {
	r := invalid
	for _, e := range values {
		switch fastEquals(v, e) {
		case valid:
			return valid
		case unknown:
			r = unknown
		}
	}
	return r
}

// fastEquals is jsonschema's equals: structural, numbers by value.
func fastEquals(a, b any) verdict {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return verdictOf(ok && x == y)
	case nil:
		return verdictOf(b == nil)
	case bool:
		y, ok := b.(bool)
		return verdictOf(ok && x == y)
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			switch b.(type) {
			case string, nil, bool, map[string]any, []any:
				return invalid
			}
			return unknown
		}
		if x == y {
			return valid
		}
		rx, ok1 := new(big.Rat).SetString(string(x))
		ry, ok2 := new(big.Rat).SetString(string(y))
		if !ok1 || !ok2 {
			return unknown
		}
		return verdictOf(rx.Cmp(ry) == 0)
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return invalid
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok {
				return invalid
			}
			if r := fastEquals(xv, yv); r != valid {
				return r
			}
		}
		return valid
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return invalid
		}
		for i := range x {
			if r := fastEquals(x[i], y[i]); r != valid {
				return r
			}
		}
		return valid
	}
	return unknown
}

func verdictOf(ok bool) verdict {
	if ok {
		return valid
	}
	return invalid
}
