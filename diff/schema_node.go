package diff

import (
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
)

// node is a JSON Schema in canonical form: what generation orders at random (anyOf
// and oneOf variants, enum values, required names, type lists) is held as sets, prose
// (title, description) is dropped, and nullability is a flag whichever way it was
// spelled (type ["x","null"], an anyOf with {"type":"null"}, or null in an enum).
type node struct {
	ref      string   // referenced type name
	types    []string // sorted JSON types, without "null" when nullable is set
	nullable bool     // null is allowed besides other values
	enum     []string // canonical JSON of each allowed value (const too), sorted
	props    map[string]*node
	required map[string]bool
	items    *node
	addl     *node             // additionalProperties as a schema
	keywords map[string]string // format, bounds, pattern, default, additionalProperties:bool...; canonical JSON
	variants map[string]*node  // anyOf/oneOf/allOf alternatives by variantKey
}

// parseNode canonicalises a decoded schema.
func parseNode(v any) *node {
	m, ok := v.(map[string]any)
	if !ok {
		// true/false schemas.
		return &node{keywords: map[string]string{"schema": canonical(v)}}
	}
	n := &node{}
	if all, ok := m["allOf"].([]any); ok && len(all) == 1 {
		// allOf:[X] wraps a reference to attach a description or default: it is X.
		inner := parseNode(all[0])
		n = inner
	}
	for k, val := range m {
		switch k {
		case "$ref":
			s, _ := val.(string)
			n.ref = path.Base(s)
		case "type":
			switch t := val.(type) {
			case string:
				n.types = []string{t}
			case []any:
				for _, e := range t {
					if s, ok := e.(string); ok {
						n.types = append(n.types, s)
					}
				}
			}
		case "enum":
			vals, _ := val.([]any)
			for _, e := range vals {
				n.enum = append(n.enum, canonical(e))
			}
		case "const":
			n.enum = append(n.enum, canonical(val))
		case "properties":
			props, _ := val.(map[string]any)
			n.props = make(map[string]*node, len(props))
			for name, p := range props {
				n.props[name] = parseNode(p)
			}
		case "required":
			req, _ := val.([]any)
			n.required = map[string]bool{}
			for _, r := range req {
				if s, ok := r.(string); ok {
					n.required[s] = true
				}
			}
		case "items":
			n.items = parseNode(val)
		case "additionalProperties":
			if _, isBool := val.(bool); isBool {
				n.setKeyword(k, canonical(val))
			} else {
				n.addl = parseNode(val)
			}
		case "anyOf", "oneOf":
			for _, e := range val.([]any) {
				n.addVariant(parseNode(e))
			}
		case "allOf":
			if all := val.([]any); len(all) > 1 {
				for _, e := range all {
					n.addVariant(parseNode(e))
				}
			}
		case "title", "description", "$schema", "definitions", "examples":
			// Prose and containers: not part of the type.
		default:
			n.setKeyword(k, canonical(val))
		}
	}
	n.normalizeNull()
	n.mergeEnumVariants()
	sort.Strings(n.types)
	sort.Strings(n.enum)
	return n
}

func (n *node) setKeyword(k, v string) {
	if n.keywords == nil {
		n.keywords = map[string]string{}
	}
	n.keywords[k] = v
}

func (n *node) addVariant(v *node) {
	if n.variants == nil {
		n.variants = map[string]*node{}
	}
	k := variantKey(v)
	for i := 2; n.variants[k] != nil; i++ {
		k = fmt.Sprintf("%s#%d", variantKey(v), i)
	}
	n.variants[k] = v
}

// normalizeNull turns every spelling of "or null" into the nullable flag, and an
// anyOf of one type and null into that type.
func (n *node) normalizeNull() {
	if len(n.types) > 1 {
		if i := slices.Index(n.types, "null"); i >= 0 {
			n.types = append(n.types[:i:i], n.types[i+1:]...)
			n.nullable = true
		}
	}
	if len(n.enum) > 1 {
		if i := slices.Index(n.enum, "null"); i >= 0 {
			n.enum = append(n.enum[:i:i], n.enum[i+1:]...)
			n.nullable = true
		}
	}
	if null, ok := n.variants["type:null"]; ok && len(n.variants) > 1 && null.isBareNull() {
		delete(n.variants, "type:null")
		n.nullable = true
		if len(n.variants) == 1 && n.ref == "" && n.types == nil && n.props == nil && n.enum == nil && n.items == nil {
			for _, only := range n.variants {
				nullable, keywords := true, n.keywords
				*n = *only
				n.nullable = nullable
				for k, v := range keywords {
					n.setKeyword(k, v)
				}
			}
		}
	}
}

// mergeEnumVariants merges a union's plain-enum variants of one type (the generator
// emits one per documented group of values) into one enum variant, keyed "enum"; a
// union of nothing but such values becomes a plain enum.
func (n *node) mergeEnumVariants() {
	if len(n.variants) < 2 || n.ref != "" {
		return
	}
	var merged *node
	for _, k := range slices.Sorted(maps.Keys(n.variants)) {
		v := n.variants[k]
		if v.enum == nil || v.ref != "" || v.props != nil || v.variants != nil || v.items != nil || len(v.types) > 1 {
			continue
		}
		if merged != nil && strings.Join(merged.types, "|") != strings.Join(v.types, "|") {
			return // enums of different types stay apart
		}
		if merged == nil {
			merged = &node{types: v.types}
		}
		merged.enum = append(merged.enum, v.enum...)
		merged.nullable = merged.nullable || v.nullable
		delete(n.variants, k)
	}
	if merged == nil {
		return
	}
	sort.Strings(merged.enum)
	if len(n.variants) == 0 && n.props == nil && n.enum == nil {
		n.variants = nil
		n.enum = merged.enum
		n.nullable = n.nullable || merged.nullable
		if n.types == nil {
			n.types = merged.types
		}
		return
	}
	n.variants["enum"] = merged
}

func (n *node) isBareNull() bool {
	return len(n.types) == 1 && n.types[0] == "null" && n.props == nil && n.enum == nil && n.ref == ""
}

// canonical renders a decoded JSON value with sorted keys (encoding/json sorts maps).
func canonical(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	return string(b)
}
