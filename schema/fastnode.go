package schema

import (
	"encoding/json"
	"math/big"
	"reflect"
	"strings"
	"unsafe"

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
// the set. It runs under Set.mu. It reads a schema file's maps as its compiled copy
// holds them (taggedCopy), one map at a time: the tagged unions it reaches are
// rewritten as it reaches them (view), the rest is read in place.
type fbuilder struct {
	s     *Set
	memo  map[fkey]*fnode
	views map[unsafe.Pointer]map[string]any // a tagged document's map to its view
	made  map[unsafe.Pointer]bool           // maps a view made, read as they are
}

// fkey is a schema map by identity, and whether its document is tagged (a union's
// branch is read in place by its route and rewritten through its file).
type fkey struct {
	p      unsafe.Pointer
	tagged bool
}

func newFbuilder(s *Set) *fbuilder {
	return &fbuilder{s: s, memo: map[fkey]*fnode{}, views: map[unsafe.Pointer]map[string]any{},
		made: map[unsafe.Pointer]bool{}}
}

// view is the map m of doc as doc's compiled copy holds it: m itself, unless doc is
// tagged and m is a tagged union other than doc's root, which rewrite turns into an
// if/then/else chain. The chain's alternatives are m's own maps (viewed in turn when
// read); its innermost oneOf is kept as it is, as rewrite keeps it.
func (b *fbuilder) view(doc *document, m map[string]any) map[string]any {
	p := reflect.ValueOf(m).UnsafePointer()
	if !doc.tagged || b.made[p] {
		return m
	}
	if root, ok := doc.root.(map[string]any); ok && reflect.ValueOf(root).UnsafePointer() == p {
		return m
	}
	if v, ok := b.views[p]; ok {
		return v
	}
	v, inner := taggedView(doc.root, m)
	if inner != nil {
		b.made[reflect.ValueOf(inner).UnsafePointer()] = true
	}
	b.views[p] = v
	return v
}

// ptr follows the JSON pointer ptr from doc's root through the maps as view shows
// them: the value doc's compiled copy holds there (before its own rewriting).
func (b *fbuilder) ptr(doc *document, ptr string) any {
	return ptrGetView(doc.root, ptr, func(m map[string]any) map[string]any { return b.view(doc, m) })
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
		key := fkey{reflect.ValueOf(t).UnsafePointer(), doc.tagged}
		if n, ok := b.memo[key]; ok {
			return n
		}
		n := &fnode{}
		b.memo[key] = n // before the children: references may cycle back
		b.fill(n, doc, b.view(doc, t))
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
	v := b.ptr(target, strings.TrimPrefix(frag, "#"))
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
