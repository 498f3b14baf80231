package schema

// A tagged union in the generated schemas is a oneOf whose alternatives are objects
// that each require one member (usually "type") to hold one string of their own:
// ThreadItem has 19 of them. Validating a oneOf means validating every alternative,
// so an item notification paid for 19 schemas. The compiler is handed a copy of each
// file in which such a oneOf is replaced by an if/then/else chain on the tag: the one
// alternative the tag names is validated, and a value without a known tag falls
// through to the original oneOf. The result is the same (the other alternatives fail
// on their tag anyway), the error is the precise one of the named alternative, and
// the walk for undeclared fields keeps reading the unmodified documents.

// taggedCopy returns a deep copy of a parsed schema document with its tagged unions
// rewritten. The top-level oneOf of the union files is kept, since routes refer into
// it by index.
func taggedCopy(root any) any {
	return rewrite(root, root, true)
}

func rewrite(root, v any, top bool) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = rewrite(root, x, false)
		}
		if top {
			return out
		}
		alts, ok := t["oneOf"].([]any)
		if !ok || len(alts) < 2 {
			return out
		}
		_, hasIf := t["if"]
		if hasIf {
			return out
		}
		prop, tags := unionTags(root, alts)
		if prop == "" {
			return out
		}
		tagChain(out, out["oneOf"].([]any), prop, tags)
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = rewrite(root, x, false)
		}
		return out
	}
	return v
}

// taggedView is rewrite of the map m (not a document's root) one level deep: m
// itself unless it is a tagged union, else a copy whose oneOf is the if/then/else
// chain on the tag, over m's own alternatives. inner is the chain's innermost map,
// the original oneOf, which rewrite does not rewrite again.
func taggedView(root any, m map[string]any) (view, inner map[string]any) {
	alts, ok := m["oneOf"].([]any)
	if !ok || len(alts) < 2 {
		return m, nil
	}
	if _, hasIf := m["if"]; hasIf {
		return m, nil
	}
	prop, tags := unionTags(root, alts)
	if prop == "" {
		return m, nil
	}
	out := make(map[string]any, len(m)+2)
	for k, x := range m {
		out[k] = x
	}
	return out, tagChain(out, alts, prop, tags)
}

// tagChain replaces out's oneOf of alts by the if/then/else chain on the tag member
// prop, and returns the chain's innermost map ({"oneOf": alts}).
func tagChain(out map[string]any, alts []any, prop string, tags []string) map[string]any {
	inner := map[string]any{"oneOf": alts}
	var chain any = inner
	for i := len(alts) - 1; i >= 0; i-- {
		chain = map[string]any{
			"if": map[string]any{"type": "object", "required": []any{prop},
				"properties": map[string]any{prop: map[string]any{"const": tags[i]}}},
			"then": alts[i],
			"else": chain,
		}
	}
	delete(out, "oneOf")
	c := chain.(map[string]any)
	out["if"], out["then"], out["else"] = c["if"], c["then"], c["else"]
	return inner
}

// unionTags finds the member every alternative requires with a single string value
// of its own, all different; "" when the oneOf is not such a union.
func unionTags(root any, alts []any) (prop string, tags []string) {
	seen := map[string]bool{}
	for i, a := range alts {
		m := resolveLocal(root, a)
		if m == nil {
			return "", nil
		}
		props, _ := m["properties"].(map[string]any)
		req, _ := m["required"].([]any)
		found := ""
		for _, r := range req {
			name, _ := r.(string)
			if name == "" || (i > 0 && name != prop) {
				continue
			}
			if tag, ok := singleString(props[name]); ok {
				found = name
				if seen[tag] {
					return "", nil
				}
				seen[tag] = true
				tags = append(tags, tag)
				break
			}
		}
		if found == "" {
			return "", nil
		}
		prop = found
	}
	return prop, tags
}

// resolveLocal follows "#/..." references (a few hops) to an object schema.
func resolveLocal(root, v any) map[string]any {
	for range 8 {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		if len(ref) == 0 || ref[0] != '#' {
			return nil
		}
		v = ptrGet(root, ref[1:])
	}
	return nil
}

func singleString(p any) (string, bool) {
	m, ok := p.(map[string]any)
	if !ok {
		return "", false
	}
	if c, ok := m["const"].(string); ok {
		return c, true
	}
	if e, ok := m["enum"].([]any); ok && len(e) == 1 {
		s, ok := e[0].(string)
		return s, ok
	}
	return "", false
}
