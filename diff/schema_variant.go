package diff

import (
	"maps"
	"slices"
	"sort"
	"strings"
)

// variantKey identifies an alternative across versions: by the type it references,
// by its tag (a property with a single allowed value, such as type or method), by
// its title, by its only type, or else by its canonical form.
func variantKey(v *node) string {
	if v.ref != "" {
		return "ref:" + v.ref
	}
	for _, tag := range []string{"type", "method", "kind"} {
		if p := v.props[tag]; p != nil && len(p.enum) == 1 {
			return tag + "=" + strings.Trim(p.enum[0], `"`)
		}
	}
	names := make([]string, 0, len(v.props))
	for name, p := range v.props {
		if len(p.enum) == 1 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	if len(names) > 0 {
		return names[0] + "=" + strings.Trim(v.props[names[0]].enum[0], `"`)
	}
	if len(v.props) == 1 && len(v.required) == 1 {
		// Externally tagged enums: {"properties":{"exec":{...}},"required":["exec"]}.
		for name := range v.props {
			return "{" + name + "}"
		}
	}
	if len(v.types) == 1 && v.props == nil && v.enum == nil {
		return "type:" + v.types[0]
	}
	if len(v.enum) > 0 && len(v.types) <= 1 {
		// A group of plain values: matched as one, so new values show as enum changes.
		return "enum"
	}
	return "schema:" + v.String()
}

// String is a canonical rendering of the node, for keys and short displays.
func (n *node) String() string {
	var b strings.Builder
	n.write(&b)
	return b.String()
}

func (n *node) write(b *strings.Builder) {
	b.WriteByte('{')
	if n.ref != "" {
		b.WriteString("$ref:" + n.ref + ";")
	}
	if len(n.types) > 0 {
		b.WriteString("type:" + strings.Join(n.types, "|") + ";")
	}
	if n.nullable {
		b.WriteString("nullable;")
	}
	if len(n.enum) > 0 {
		b.WriteString("enum:" + strings.Join(n.enum, ",") + ";")
	}
	for _, k := range slices.Sorted(maps.Keys(n.keywords)) {
		b.WriteString(k + ":" + n.keywords[k] + ";")
	}
	for _, k := range slices.Sorted(maps.Keys(n.props)) {
		if n.required[k] {
			b.WriteString("!")
		}
		b.WriteString(k + ":")
		n.props[k].write(b)
		b.WriteByte(';')
	}
	if n.items != nil {
		b.WriteString("items:")
		n.items.write(b)
		b.WriteByte(';')
	}
	if n.addl != nil {
		b.WriteString("additional:")
		n.addl.write(b)
		b.WriteByte(';')
	}
	for _, k := range slices.Sorted(maps.Keys(n.variants)) {
		b.WriteString("|" + k + ":")
		n.variants[k].write(b)
	}
	b.WriteByte('}')
}
