package schema

import (
	"github.com/codexrec/codexrec/internal/jsonx"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// node is a point in a schema document the undeclared-field walk stands on. A node
// with props is synthetic: it declares those members directly (a response's result).
type node struct {
	doc      *document
	s        any
	props    map[string][]node
	envelope bool // JSONRPC*.json: declares top-level members only, never their content
}

// maxExpand bounds $ref/allOf/anyOf expansion per value, so a cyclic or hostile
// schema (from --schema-dir) cannot make the walk run away.
const maxExpand = 256

// undeclaredPre walks v against nodes and appends the pointer of every member that
// no schema at its position declares, sorted, with the top level already expanded
// when pre is set. Members of undeclared members are not visited: the outermost one
// is the finding.
func undeclaredPre(v any, nodes []node, pre *expansion, out []string) []string {
	w := walker{out: out}
	w.walk(v, nodes, pre)
	sort.Strings(w.out)
	return w.out
}

// topExpansion expands a route's top-level nodes once, when that does not depend on
// the message; nil otherwise.
func topExpansion(nodes []node) *expansion {
	objs, open, dependent := expand(nodes, map[string]any{})
	if dependent {
		return nil
	}
	return &expansion{objs: objs, open: open, cached: true}
}

// walker holds the path to the current value; pointers are only built for findings.
type walker struct {
	path []string
	out  []string
}

func (w *walker) report(last string) {
	w.out = append(w.out, jsonx.Pointer(w.path...)+"/"+jsonx.EscapeToken(last))
}

func (w *walker) walk(v any, nodes []node, pre *expansion) {
	switch val := v.(type) {
	case map[string]any:
		x := pre
		if x == nil {
			x = expandCached(nodes, val)
		}
		if x.open {
			return
		}
		for k, mv := range val {
			if len(w.path) == 0 && k == "jsonrpc" {
				// JSON-RPC 2.0's own member: the server accepts and ignores it, and the
				// envelope schemas leave it out only because Codex omits it.
				continue
			}
			child, declared, free := x.member(k)
			switch {
			case !declared:
				w.report(k)
			case !free && len(child) > 0:
				switch mv.(type) {
				case map[string]any, []any:
					w.path = append(w.path, k)
					w.walk(mv, child, nil)
					w.path = w.path[:len(w.path)-1]
				}
			}
		}
	case []any:
		x := expandCached(nodes, val)
		if x.open {
			return
		}
		objs := x.objs
		for i, e := range val {
			switch e.(type) {
			case map[string]any, []any:
			default:
				continue
			}
			var child []node
			for _, o := range objs {
				switch items := o.s.(map[string]any)["items"].(type) {
				case map[string]any:
					child = append(child, node{doc: o.doc, s: items})
				case []any:
					if i < len(items) {
						child = append(child, node{doc: o.doc, s: items[i]})
					}
				}
			}
			if len(child) > 0 {
				w.path = append(w.path, strconv.Itoa(i))
				w.walk(e, child, nil)
				w.path = w.path[:len(w.path)-1]
			}
		}
	}
}

// expansion is what expand found at one position. Expansions that do not depend on
// the value (no anyOf/oneOf on the way) are cached per schema node, and then also
// carry a table of what each member name resolves to, built on first use.
type expansion struct {
	objs   []node
	open   bool
	cached bool

	once  sync.Once
	names map[string]member // members named in some "properties"
	rest  member            // any other name (additionalProperties, patternProperties)
}

type member struct {
	child          []node
	declared, free bool
}

func (x *expansion) member(k string) ([]node, bool, bool) {
	if !x.cached {
		return members(x.objs, k)
	}
	x.once.Do(x.build)
	m, ok := x.names[k]
	if !ok {
		m = x.rest
	}
	return m.child, m.declared, m.free
}

func (x *expansion) build() {
	x.names = map[string]member{}
	for _, o := range x.objs {
		var names []string
		if o.props != nil {
			for k := range o.props {
				names = append(names, k)
			}
		} else if ps, ok := o.s.(map[string]any)["properties"].(map[string]any); ok {
			for k := range ps {
				names = append(names, k)
			}
		}
		for _, k := range names {
			if _, done := x.names[k]; !done {
				c, d, f := members(x.objs, k)
				x.names[k] = member{c, d, f}
			}
		}
	}
	// No "properties" declares this name, whatever it is.
	c, d, f := members(x.objs, "\x00")
	x.rest = member{c, d, f}
}

func expandCached(nodes []node, v any) *expansion {
	if len(nodes) != 1 || nodes[0].props != nil || nodes[0].doc == nil {
		objs, open, _ := expand(nodes, v)
		return &expansion{objs: objs, open: open}
	}
	m, ok := nodes[0].s.(map[string]any)
	if !ok {
		objs, open, _ := expand(nodes, v)
		return &expansion{objs: objs, open: open}
	}
	key := reflect.ValueOf(m).UnsafePointer()
	// The cache key includes the kind of value: type filters differ for objects and arrays.
	_, isArr := v.([]any)
	cache := &nodes[0].doc.objExp
	if isArr {
		cache = &nodes[0].doc.arrExp
	}
	if e, ok := cache.Load(key); ok {
		return e.(*expansion)
	}
	objs, open, dependent := expand(nodes, v)
	x := &expansion{objs: objs, open: open, cached: !dependent}
	if !dependent {
		cache.Store(key, x)
	}
	return x
}

// members collects what the object schemas say about member k: the schemas of its
// value, whether any declares it, and whether one leaves it free (true or {}).
func members(objs []node, k string) (child []node, declared, free bool) {
	var trivial bool
	for _, o := range objs {
		if o.props != nil {
			if ns, ok := o.props[k]; ok {
				declared = true
				child = append(child, ns...)
			}
			continue
		}
		m := o.s.(map[string]any)
		if ps, ok := m["properties"].(map[string]any); ok {
			if p, ok := ps[k]; ok {
				declared = true
				if o.envelope || isTrivial(p) {
					trivial = true
				} else {
					child = append(child, node{doc: o.doc, s: p})
				}
				continue
			}
		}
		if _, ok := m["patternProperties"]; ok {
			declared, trivial = true, true
			continue
		}
		switch ap := m["additionalProperties"].(type) {
		case map[string]any:
			declared = true
			if isTrivial(ap) {
				trivial = true
			} else {
				child = append(child, node{doc: o.doc, s: ap})
			}
		case bool:
			// false: the validator already reports the member as invalid.
			declared, trivial = true, true
		}
	}
	// A member declared only as "anything" (params: true in the envelope) is free; one
	// declared precisely somewhere is walked against the precise schemas.
	return child, declared, trivial && len(child) == 0
}

// expand resolves $ref and allOf, and picks the anyOf/oneOf alternatives v can match,
// down to the object or array schemas that declare members or items. open is true
// when some schema at this position constrains nothing (true, {}, a bare "object").
func expand(nodes []node, v any) (objs []node, open, dependent bool) {
	work := append([]node(nil), nodes...)
	declaring := false
	for steps := 0; len(work) > 0 && steps < maxExpand; steps++ {
		n := work[len(work)-1]
		work = work[:len(work)-1]
		if n.props != nil {
			objs = append(objs, n)
			declaring = true
			continue
		}
		m, ok := n.s.(map[string]any)
		if !ok {
			if b, isBool := n.s.(bool); isBool && b {
				open = true
			}
			continue
		}
		in := n.doc.info(m)
		if in.hasRef {
			if t := n.doc.resolve(in.ref); t != nil {
				work = append(work, node{doc: n.doc, s: t})
			} else {
				open = true // a reference we cannot follow: claim nothing
			}
		}
		for _, a := range in.allOf {
			work = append(work, node{doc: n.doc, s: a})
		}
		for _, alts := range in.alts {
			dependent = true
			var fit []node
			for _, a := range alts {
				if matches(n.doc, a, v) {
					fit = append(fit, node{doc: n.doc, s: a})
				}
			}
			if len(fit) == 0 { // the validator reports the mismatch; declare generously
				for _, a := range alts {
					fit = append(fit, node{doc: n.doc, s: a})
				}
			}
			work = append(work, fit...)
		}
		if in.declares {
			objs = append(objs, n)
			declaring = true
		} else if in.open {
			open = true
		}
	}
	return objs, open || !declaring, dependent
}

func hasComb(m map[string]any) bool {
	for _, k := range [...]string{"$ref", "allOf", "anyOf", "oneOf"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// isTrivial reports a schema that accepts anything: true, {} or only annotations.
func isTrivial(s any) bool {
	switch t := s.(type) {
	case bool:
		return t
	case map[string]any:
		for k := range t {
			switch k {
			case "description", "title", "default", "examples", "$schema", "$comment":
			default:
				return false
			}
		}
		return true
	}
	return false
}

// resolve follows a local reference ("#/definitions/X") within the document.
func (d *document) resolve(ref string) any {
	if v, ok := d.refs.Load(ref); ok {
		return v
	}
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil // another file: the generated sets are self-contained per file
	}
	t := ptrGet(d.root, frag)
	if t != nil {
		d.refs.Store(ref, t)
	}
	return t
}
