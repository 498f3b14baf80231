package schema

import (
	"encoding/json"
	"math/big"

	"github.com/codexrec/codexrec/internal/jsonschema"
)

// The fast check's tests on single values: types, numbers, equality (fast.go).

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
