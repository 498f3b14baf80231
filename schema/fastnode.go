package schema

import (
	"encoding/json"
	"math/big"
	"reflect"
	"strings"

	"github.com/codexrec/codexrec/internal/jsonschema"
)

// fnode is one schema of the fast check (fast.go), read from the parsed documents the
// compiler would get (the tagged-union copies). Building them is much cheaper than
// jsonschema's compile, which for an embedded set is deferred until a message needs
// the library's exact finding: a clean session never compiles anything.
type fnode struct {
	unsupported bool // a keyword the fast check does not know: always "unknown"
	boolean     *bool
	types       jsonschema.Types
	constv      *any
	enum        []any
	hasEnum     bool
	format      *jsonschema.Format
	ref         *fnode

	required  []string
	props     map[string]*fnode
	addl      any // nil, bool or *fnode
	items     any // nil, *fnode or []*fnode
	addItems  any // nil, bool or *fnode
	allOf     []*fnode
	anyOf     []*fnode
	oneOf     []*fnode
	not       *fnode
	ifS       *fnode
	then, els *fnode
	minimum   *big.Rat
	maximum   *big.Rat
	minLength *int
	maxLength *int
}

// fbuilder builds the fnodes reachable from a route, sharing them across routes of
// the set. It runs under Set.mu.
type fbuilder struct {
	s    *Set
	memo map[any]*fnode // by the schema map's identity
}

var unsupportedNode = &fnode{unsupported: true}

// annotations are keywords that do not constrain a value.
var annotations = map[string]bool{"title": true, "description": true, "default": true,
	"examples": true, "$comment": true, "definitions": true, "$schema": true}

func (b *fbuilder) node(doc *document, v any) *fnode {
	switch t := v.(type) {
	case bool:
		return &fnode{boolean: &t}
	case map[string]any:
		key := reflect.ValueOf(t).UnsafePointer()
		if n, ok := b.memo[key]; ok {
			return n
		}
		n := &fnode{}
		b.memo[key] = n // before the children: references may cycle back
		b.fill(n, doc, t)
		return n
	}
	return unsupportedNode
}

func (b *fbuilder) fill(n *fnode, doc *document, m map[string]any) {
	bad := func() { *n = fnode{unsupported: true} }
	for k, v := range m {
		if n.unsupported {
			return
		}
		switch k {
		case "type":
			switch t := v.(type) {
			case string:
				if !addType(&n.types, t) {
					bad()
				}
			case []any:
				for _, x := range t {
					s, ok := x.(string)
					if !ok || !addType(&n.types, s) {
						bad()
					}
				}
			default:
				bad()
			}
		case "const":
			c := v
			n.constv = &c
		case "enum":
			e, ok := v.([]any)
			if !ok {
				bad()
			}
			n.enum, n.hasEnum = e, true
		case "format":
			name, _ := v.(string)
			n.format = formatNamed(name)
			if n.format == nil {
				bad()
			}
		case "$ref":
			ref, _ := v.(string)
			n.ref = b.resolve(doc, ref)
		case "required":
			req, ok := v.([]any)
			if !ok {
				bad()
			}
			for _, r := range req {
				s, ok := r.(string)
				if !ok {
					bad()
				}
				n.required = append(n.required, s)
			}
		case "properties":
			ps, ok := v.(map[string]any)
			if !ok {
				bad()
				continue
			}
			n.props = make(map[string]*fnode, len(ps))
			for name, p := range ps {
				n.props[name] = b.node(doc, p)
			}
		case "additionalProperties":
			n.addl = b.boolOrNode(doc, v)
		case "items":
			if arr, ok := v.([]any); ok {
				var items []*fnode
				for _, x := range arr {
					items = append(items, b.node(doc, x))
				}
				n.items = items
			} else {
				n.items = b.node(doc, v)
			}
		case "additionalItems":
			n.addItems = b.boolOrNode(doc, v)
		case "allOf", "anyOf", "oneOf":
			arr, ok := v.([]any)
			if !ok {
				bad()
				continue
			}
			var list []*fnode
			for _, x := range arr {
				list = append(list, b.node(doc, x))
			}
			switch k {
			case "allOf":
				n.allOf = list
			case "anyOf":
				n.anyOf = list
			default:
				n.oneOf = list
			}
		case "not":
			n.not = b.node(doc, v)
		case "if":
			n.ifS = b.node(doc, v)
		case "then":
			n.then = b.node(doc, v)
		case "else":
			n.els = b.node(doc, v)
		case "minimum", "maximum":
			num, ok := v.(json.Number)
			r, ok2 := new(big.Rat).SetString(string(num))
			if !ok || !ok2 {
				bad()
				continue
			}
			if k == "minimum" {
				n.minimum = r
			} else {
				n.maximum = r
			}
		case "minLength", "maxLength":
			num, _ := v.(json.Number)
			i, err := num.Int64()
			if err != nil || i < 0 {
				bad()
				continue
			}
			l := int(i)
			if k == "minLength" {
				n.minLength = &l
			} else {
				n.maxLength = &l
			}
		case "$schema":
			if s, _ := v.(string); !strings.Contains(s, "draft-07") {
				bad() // another draft has other rules
			}
		default:
			if !annotations[k] {
				bad()
			}
		}
	}
	if n.ref != nil && n.ref.unsupported {
		bad()
	}
}

func (b *fbuilder) boolOrNode(doc *document, v any) any {
	if t, ok := v.(bool); ok {
		return t
	}
	return b.node(doc, v)
}

// resolve follows a reference as the compiler would: "#/..." within doc, or a file of
// the set by its full URL (the routes' own documents refer into the union files).
func (b *fbuilder) resolve(doc *document, ref string) *fnode {
	target := doc
	frag := ref
	if !strings.HasPrefix(ref, "#") {
		file, f, _ := strings.Cut(ref, "#")
		key, ok := strings.CutPrefix(file, baseURL)
		if !ok {
			return unsupportedNode
		}
		d, err := b.s.doc(key)
		if err != nil {
			return unsupportedNode
		}
		target, frag = d, "#"+f
	}
	v := ptrGet(target.compiled, strings.TrimPrefix(frag, "#"))
	if v == nil {
		return unsupportedNode
	}
	return b.node(target, v)
}

func addType(t *jsonschema.Types, name string) bool {
	if _, ok := typeBit[name]; !ok {
		return false
	}
	t.Add(name)
	return true
}

func formatNamed(name string) *jsonschema.Format {
	for _, f := range formats {
		if f.Name == name {
			return f
		}
	}
	return nil
}
