package schema

import (
	"encoding/json"
	"strconv"
	"strings"
)

// matches is a quick test of whether alternative a can describe v: its type and any
// single-value enum or const members (the tag of a tagged union) agree with v.
func matches(doc *document, a any, v any) bool {
	m, ok := a.(map[string]any)
	if !ok {
		return a != false
	}
	al := doc.info(m).alt(doc, m)
	if al.fixed {
		return al.result
	}
	if !typeMatches(al.typ, v) {
		return false
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return true
	}
	for _, t := range al.tags {
		got, present := obj[t.name]
		if present && !sameScalar(got, t.want) {
			return false
		}
	}
	for _, name := range al.required {
		if _, present := obj[name]; !present {
			return false
		}
	}
	return true
}

// altMatch is what matches needs of an alternative, read once: its $ref chain
// followed, the type, the members holding a single value, the required names.
type altMatch struct {
	fixed, result bool // the answer does not depend on the value
	typ           any
	tags          []tagMember
	required      []string
}

type tagMember struct {
	name string
	want any
}

func newAltMatch(doc *document, a any) *altMatch {
	for range 8 {
		m, ok := a.(map[string]any)
		if !ok {
			return &altMatch{fixed: true, result: a != false}
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			break
		}
		if a = doc.resolve(ref); a == nil {
			return &altMatch{fixed: true, result: true}
		}
	}
	m, ok := a.(map[string]any)
	if !ok {
		return &altMatch{fixed: true, result: true}
	}
	al := &altMatch{typ: m["type"]}
	props, _ := m["properties"].(map[string]any)
	for name, p := range props {
		if want, ok := tag(doc, p); ok {
			al.tags = append(al.tags, tagMember{name, want})
		}
	}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if name, _ := r.(string); name != "" {
				al.required = append(al.required, name)
			}
		}
	}
	return al
}

// tag is the one value a property schema allows, if it allows exactly one.
func tag(doc *document, p any) (any, bool) {
	m, ok := p.(map[string]any)
	if !ok {
		return nil, false
	}
	if c, ok := m["const"]; ok {
		return c, true
	}
	if e, ok := m["enum"].([]any); ok && len(e) == 1 {
		return e[0], true
	}
	return nil, false
}

func sameScalar(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		return ok && x == y
	case nil:
		return b == nil
	}
	return true // objects and arrays: not a tag, do not exclude
}

func typeMatches(t any, v any) bool {
	switch tt := t.(type) {
	case nil:
		return true
	case string:
		return typeIs(tt, v)
	case []any:
		for _, x := range tt {
			if s, _ := x.(string); typeIs(s, v) {
				return true
			}
		}
		return false
	}
	return true
}

func typeIs(t string, v any) bool {
	switch v.(type) {
	case map[string]any:
		return t == "object"
	case []any:
		return t == "array"
	case string:
		return t == "string"
	case bool:
		return t == "boolean"
	case nil:
		return t == "null"
	case json.Number:
		if t == "number" {
			return true
		}
		if t == "integer" {
			n := string(v.(json.Number))
			return !strings.ContainsAny(n, ".eE") || isIntegral(n)
		}
	}
	return false
}

func isIntegral(n string) bool {
	f, err := strconv.ParseFloat(n, 64)
	return err == nil && f == float64(int64(f))
}
