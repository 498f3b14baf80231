package diff

import (
	"maps"
	"slices"
	"sort"
	"strings"
)

// rawChange is a change found by comparing two nodes, before classification.
type rawChange struct {
	shape    shape
	path     string
	old, new string
}

// comparer compares canonical nodes of two sets; seen guards against cycles when
// references are followed (a renamed type).
type comparer struct {
	old, new *SchemaSet
	seen     map[[2]*node]bool
	out      []rawChange
}

func (c *comparer) emit(s shape, path, old, new string) {
	c.out = append(c.out, rawChange{s, path, old, new})
}

// compare reports how b differs from a at path. Two references to the same name end
// the walk: named types are compared on their own, once.
func (c *comparer) compare(path string, a, b *node) {
	if a.nullable != b.nullable {
		if b.nullable {
			c.emit(nullableAdded, path, "", "null")
		} else {
			c.emit(nullableRemoved, path, "null", "")
		}
	}
	if a.ref != "" || b.ref != "" {
		if a.ref == b.ref {
			return
		}
		if a.ref != "" && b.ref != "" {
			c.emit(refChanged, path, a.ref, b.ref)
		}
		ra, rb := c.resolve(a, c.old), c.resolve(b, c.new)
		if ra == nil || rb == nil || c.seen[[2]*node{ra, rb}] {
			return
		}
		c.seen[[2]*node{ra, rb}] = true
		// Nullability was compared above, on the referring nodes.
		na, nb := *ra, *rb
		na.nullable, nb.nullable = false, false
		c.compare(path, &na, &nb)
		return
	}
	c.compareTypes(path, a, b)
	c.compareEnum(path, a, b)
	c.compareProps(path, a, b)
	if a.items != nil && b.items != nil {
		c.compare(path+"/*", a.items, b.items)
	} else if a.items != nil || b.items != nil {
		c.emit(typeChanged, path, describeItems(a), describeItems(b))
	}
	if a.addl != nil && b.addl != nil {
		c.compare(path+"/{*}", a.addl, b.addl)
	} else if a.addl != nil || b.addl != nil {
		c.emit(constraintChanged, path, "additionalProperties "+describeAddl(a), "additionalProperties "+describeAddl(b))
	}
	c.compareVariants(path, a, b)
	for _, k := range slices.Sorted(maps.Keys(union(a.keywords, b.keywords))) {
		ov, ok1 := a.keywords[k]
		nv, ok2 := b.keywords[k]
		if ok1 && ok2 && ov == nv {
			continue
		}
		s := constraintChanged
		if k == "default" {
			s = defaultChanged
		}
		c.emit(s, path, keywordText(k, ov, ok1), keywordText(k, nv, ok2))
	}
}

// resolve follows a reference (nil when the name is missing), or returns n itself.
func (c *comparer) resolve(n *node, set *SchemaSet) *node {
	if n.ref == "" {
		return n
	}
	return set.types[n.ref]
}

func (c *comparer) compareTypes(path string, a, b *node) {
	at, bt := a.types, b.types
	// A union may or may not also state its members' type at the top: infer it.
	if len(at) == 0 && len(bt) > 0 {
		at = variantTypes(a)
	}
	if len(bt) == 0 && len(at) > 0 {
		bt = variantTypes(b)
	}
	if at == nil && bt == nil {
		return
	}
	added, removed := setDiff(at, bt)
	switch {
	case len(at) == 0 || len(bt) == 0 || len(added) > 0 && len(removed) > 0:
		c.emit(typeChanged, path, typeText(at), typeText(bt))
	case len(added) > 0:
		c.emit(typeWidened, path, typeText(at), typeText(bt))
	case len(removed) > 0:
		c.emit(typeNarrowed, path, typeText(at), typeText(bt))
	}
}

// variantTypes is the union of a node's variants' types, or nil when a variant is a
// reference or untyped (then the types are unknown here and not compared).
func variantTypes(n *node) []string {
	if len(n.variants) == 0 {
		return nil
	}
	var out []string
	for _, v := range n.variants {
		if len(v.types) == 0 {
			return nil
		}
		for _, t := range v.types {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	sort.Strings(out)
	return out
}

func (c *comparer) compareEnum(path string, a, b *node) {
	if len(a.enum) == 0 || len(b.enum) == 0 {
		if len(a.enum) != len(b.enum) {
			// An enum appeared or disappeared: the allowed values narrowed or widened.
			if len(b.enum) > 0 {
				c.emit(typeNarrowed, path, "any value", "enum "+strings.Join(b.enum, ", "))
			} else {
				c.emit(typeWidened, path, "enum "+strings.Join(a.enum, ", "), "any value")
			}
		}
		return
	}
	added, removed := setDiff(a.enum, b.enum)
	for _, v := range removed {
		c.emit(enumRemoved, path, v, "")
	}
	for _, v := range added {
		c.emit(enumAdded, path, "", v)
	}
}

func (c *comparer) compareProps(path string, a, b *node) {
	for _, k := range slices.Sorted(maps.Keys(union(a.props, b.props))) {
		p := path + "/" + k
		pa, inA := a.props[k]
		pb, inB := b.props[k]
		switch {
		case !inB:
			if a.required[k] {
				c.emit(requiredFieldRemoved, p, pa.String(), "")
			} else {
				c.emit(fieldRemoved, p, pa.String(), "")
			}
		case !inA:
			if b.required[k] {
				c.emit(requiredFieldAdded, p, "", pb.String())
			} else {
				c.emit(fieldAdded, p, "", pb.String())
			}
		default:
			if a.required[k] && !b.required[k] {
				c.emit(nowOptional, p, "required", "optional")
			} else if !a.required[k] && b.required[k] {
				c.emit(nowRequired, p, "optional", "required")
			}
			c.compare(p, pa, pb)
		}
	}
}

func (c *comparer) compareVariants(path string, a, b *node) {
	for _, k := range slices.Sorted(maps.Keys(union(a.variants, b.variants))) {
		va, inA := a.variants[k]
		vb, inB := b.variants[k]
		p := path + "{" + k + "}"
		switch {
		case !inB:
			c.emit(variantRemoved, p, va.String(), "")
		case !inA:
			c.emit(variantAdded, p, "", vb.String())
		default:
			c.compare(p, va, vb)
		}
	}
}

func setDiff(a, b []string) (added, removed []string) {
	for _, v := range b {
		if !slices.Contains(a, v) {
			added = append(added, v)
		}
	}
	for _, v := range a {
		if !slices.Contains(b, v) {
			removed = append(removed, v)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	return added, removed
}

func union[V any](a, b map[string]V) map[string]bool {
	u := map[string]bool{}
	for k := range a {
		u[k] = true
	}
	for k := range b {
		u[k] = true
	}
	return u
}

func typeText(ts []string) string {
	if len(ts) == 0 {
		return "untyped"
	}
	return strings.Join(ts, "|")
}

func describeItems(n *node) string {
	if n.items == nil {
		return "no items schema"
	}
	return "items " + n.items.String()
}

func describeAddl(n *node) string {
	if n.addl == nil {
		if v, ok := n.keywords["additionalProperties"]; ok {
			return v
		}
		return "absent"
	}
	return n.addl.String()
}

func keywordText(k, v string, ok bool) string {
	if !ok {
		return k + " absent"
	}
	return k + " " + v
}
