package schema

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"reflect"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/codexrec/codexrec/internal/jsonschema"
)

// The raw check runs the fast check (fast.go) and the undeclared-member walk (walk.go)
// on a message's bytes instead of on decoded Go values, for the one answer that lets
// a message skip everything else: certainly clean (valid, nothing undeclared). Almost
// every message is, and decoding a message into maps and strings cost more than both
// checks together (a 64 KB output delta was copied twice: once whole, once unescaped).
// Where the bytes alone do not settle a question (an enum or format, a union whose
// alternative depends on the value, an escaped or repeated key), the value at that
// position alone is decoded and handed to the same code the decoded path runs, so
// the answers cannot differ. Anything but "clean" sends the message down the decoded
// path, which produces every finding as before.

// rawPath turns the raw check on; this package's tests turn it off, so that every
// message reaches the fast check and its cross-check against jsonschema (export_test.go).
var rawPath = true

// rawClean reports whether line (a JSON message, as wire.Classify found it) is
// certainly valid against r and declares every member it has.
func rawClean(r *route, line []byte) bool {
	v := bytes.TrimSpace(line)
	if len(v) == 0 {
		return false
	}
	c := newRawCheck()
	defer c.release()
	if c.schema(r.fast, v, 0) != valid {
		return false
	}
	return c.declared(v, r.walk, r.top, true)
}

// rawSchema is fastSchema on the raw value v (exactly one JSON value, no spaces
// around it).
func rawSchema(s *fnode, v []byte, hops int) verdict {
	c := newRawCheck()
	defer c.release()
	return c.schema(s, v, hops)
}

// rawDeclared is the undeclared-member walk on raw bytes: it reports whether no
// member of v is undeclared. An escaped member name answers false (the decoded path
// then decides).
func rawDeclared(v []byte, nodes []node, pre *expansion, top bool) bool {
	c := newRawCheck()
	defer c.release()
	return c.declared(v, nodes, pre, top)
}

// rawCheck is one message's raw check. It reads each object of the message into
// its members once (objects), however many times the check visits it: the
// alternatives of a union each visit the same object, and the undeclared walk visits
// it again.
type rawCheck struct {
	schemaFn func(*fnode, []byte, int) verdict // c.schema, for cond and elements
	objs     []rawObj                          // the objects read, by their bytes
	kvs      []rawKV                           // their members
	keyBuf   []byte                            // a shape's key (rawshape.go)
}

// rawObj is an object of the message as objects read it: its members (kvs[from:to])
// when ok and plain.
type rawObj struct {
	at        *byte
	n         int
	from, to  int
	ok, plain bool
}

type rawKV struct{ k, v []byte }

// maxRawObjs bounds the objects a check remembers; past it, objects are read again
// at each visit.
const maxRawObjs = 64

var rawChecks = sync.Pool{New: func() any {
	c := &rawCheck{}
	c.schemaFn = c.schema
	return c
}}

func newRawCheck() *rawCheck { return rawChecks.Get().(*rawCheck) }

func (c *rawCheck) release() {
	clear(c.kvs) // no reference to the message is kept
	clear(c.objs)
	c.objs, c.kvs = c.objs[:0], c.kvs[:0]
	if cap(c.kvs) <= 4096 {
		rawChecks.Put(c)
	}
}

// members reads the object v: its members, whether it was read to its end (ok; as
// eachMember reports it) and whether its member names are plain: none escaped or
// repeated, at most maxRawKeys of them. Reading stops at the first name that is not.
func (c *rawCheck) members(v []byte) (kvs []rawKV, ok, plain bool) {
	at := unsafe.SliceData(v)
	for _, o := range c.objs {
		if o.at == at && o.n == len(v) {
			return c.kvs[o.from:o.to], o.ok, o.plain
		}
	}
	from := len(c.kvs)
	plain = true
	ok = eachMember(v, func(k, val []byte) bool {
		if len(c.kvs)-from == maxRawKeys || bytes.IndexByte(k, '\\') >= 0 {
			plain = false
			return false
		}
		for _, x := range c.kvs[from:] {
			if bytes.Equal(x.k, k) {
				plain = false
				return false
			}
		}
		c.kvs = append(c.kvs, rawKV{k, val})
		return true
	})
	if len(c.objs) < maxRawObjs {
		c.objs = append(c.objs, rawObj{at: at, n: len(v), from: from, to: len(c.kvs), ok: ok, plain: plain})
	}
	return c.kvs[from:], ok, plain
}

// schema is rawSchema.
func (rc *rawCheck) schema(s *fnode, v []byte, hops int) verdict {
	if hops > maxHops || s.unsupported {
		return unknown
	}
	if s.boolean != nil {
		return verdictOf(*s.boolean)
	}
	c := v[0]
	if s.constv != nil || s.hasEnum || s.format != nil {
		if c == '{' || c == '[' {
			return decodedSchema(s, v, hops)
		}
	}
	if s.types != 0 {
		if r := rawType(s.types, v); r != valid {
			return r
		}
	}
	if c == '"' && s.format == nil && (s.constv != nil || s.hasEnum) && plainString(v) {
		// A tag's value (a union's "type"): compared as it is written, not decoded.
		if r := rawStringIn(s, v[1:len(v)-1]); r != valid {
			return r
		}
	} else if s.constv != nil || s.hasEnum || s.format != nil {
		val, ok := shallowValue(v) // a scalar here: decoded, its strings v's bytes
		if !ok {
			return unknown
		}
		if s.constv != nil {
			if r := fastEquals(val, *s.constv); r != valid {
				return r
			}
		}
		if s.hasEnum {
			if r := fastEnum(s.enum, val); r != valid {
				return r
			}
		}
		if s.format != nil && s.format.Validate(val) != nil {
			return invalid
		}
	}
	if s.ref != nil {
		return rc.schema(s.ref, v, hops+1)
	}
	r := valid
	switch {
	case c == '{':
		r = rc.object(s, v)
	case c == '[':
		r = rc.array(s, v)
	case c == '"':
		if s.minLength != nil || s.maxLength != nil {
			return decodedSchema(s, v, hops)
		}
	case c == 't' || c == 'f' || c == 'n':
	default:
		if s.minimum != nil || s.maximum != nil {
			r = fastNumber(s, json.Number(v))
		}
	}
	if r != valid {
		return r
	}
	return cond(s, v, hops, rc.schemaFn)
}

// decodedSchema is fastSchema on v decoded: the raw check's answer where the bytes
// alone do not settle it.
func decodedSchema(s *fnode, v []byte, hops int) verdict {
	val, err := decode(v)
	if err != nil {
		return unknown
	}
	return fastSchema(s, val, hops)
}

// plainString reports whether the JSON string v (quotes included) decodes to the
// bytes between its quotes: no escapes or control characters, valid UTF-8.
func plainString(v []byte) bool {
	if len(v) < 2 {
		return false
	}
	in := v[1 : len(v)-1]
	for _, b := range in {
		if b == '\\' || b < 0x20 {
			return false
		}
	}
	return utf8.Valid(in)
}

// rawStringIn is the const and enum checks of fastSchema on the string whose
// decoded value is str (fastEquals of a string: equal to a string, of anything else
// unequal).
func rawStringIn(s *fnode, str []byte) verdict {
	if s.constv != nil {
		if y, ok := (*s.constv).(string); !ok || string(str) != y {
			return invalid
		}
	}
	if s.hasEnum {
		for _, e := range s.enum {
			if y, ok := e.(string); ok && string(str) == y {
				return valid
			}
		}
		return invalid
	}
	return valid
}

func rawType(t jsonschema.Types, v []byte) verdict {
	var want jsonschema.Types
	switch v[0] {
	case 'n':
		want = nullBit
	case 't', 'f':
		want = boolBit
	case '"':
		want = strBit
	case '[':
		want = arrBit
	case '{':
		want = objBit
	default:
		want = numBit
	}
	if t&want != 0 {
		return valid
	}
	if want == numBit && t&intBit != 0 && (plainIntegerBytes(v) || isIntegerNumber(json.Number(v))) {
		return valid
	}
	return invalid
}

func plainIntegerBytes(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// maxRawKeys bounds the members an object may have for the raw check to track them
// (for required and repeated names); a larger object is decoded.
const maxRawKeys = 32

// object is fastObject on raw bytes. An object with an escaped or repeated member
// name (decoding keeps the last of a repeated name) or with very many members is
// decoded instead.
func (rc *rawCheck) object(s *fnode, v []byte) verdict {
	kvs, ok, plain := rc.members(v)
	if !ok {
		return unknown
	}
	if !plain {
		val, err := decode(v)
		if err != nil {
			return unknown
		}
		return fastObject(s, val.(map[string]any))
	}
	r := valid
	if len(s.props) > 0 || s.addl != nil {
		for _, kv := range kvs {
			var x verdict
			if p, ok := s.props[bytesString(kv.k)]; ok {
				x = rc.schema(p, kv.v, 0)
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
					x = rc.schema(add, kv.v, 0)
				default:
					x = unknown
				}
			}
			if r = r.and(x); r == invalid {
				return invalid // as the required names would leave it
			}
		}
	}
	for _, name := range s.required {
		found := false
		for _, kv := range kvs {
			if string(kv.k) == name {
				found = true
				break
			}
		}
		if !found {
			return invalid
		}
	}
	return r
}

// array is fastArray on raw bytes.
func (rc *rawCheck) array(s *fnode, v []byte) verdict {
	var buf [16][]byte
	elems := buf[:0]
	if !eachElement(v, func(e []byte) bool { elems = append(elems, e); return true }) {
		return unknown
	}
	return elements(s, elems, rc.schemaFn)
}

// declared is rawDeclared.
func (rc *rawCheck) declared(v []byte, nodes []node, pre *expansion, top bool) bool {
	switch v[0] {
	case '{':
		x := pre
		if x == nil {
			if x = rc.expansion(nodes, v); x == nil {
				return false
			}
		}
		if x.open {
			return true
		}
		kvs, ok, plain := rc.members(v)
		if !plain {
			return rc.declaredSlow(v, x, top)
		}
		for _, kv := range kvs {
			if top && string(kv.k) == "jsonrpc" {
				continue // see walker.walk
			}
			child, declared, free := x.member(bytesString(kv.k))
			if !declared {
				return false
			}
			if !free && len(child) > 0 && (kv.v[0] == '{' || kv.v[0] == '[') && !rc.declared(kv.v, child, nil, false) {
				return false
			}
		}
		return ok
	case '[':
		x := rc.expansion(nodes, v)
		if x == nil {
			return false
		}
		if x.open {
			return true
		}
		i := -1
		clean := true
		ok := eachElement(v, func(e []byte) bool {
			i++
			if e[0] != '{' && e[0] != '[' {
				return true
			}
			var child []node
			for _, o := range x.objs {
				switch items := o.s.(map[string]any)["items"].(type) {
				case map[string]any:
					child = append(child, node{doc: o.doc, s: items})
				case []any:
					if i < len(items) {
						child = append(child, node{doc: o.doc, s: items[i]})
					}
				}
			}
			if len(child) > 0 && !rc.declared(e, child, nil, false) {
				clean = false
				return false
			}
			return true
		})
		return ok && clean
	}
	return true
}

// declaredSlow is declared on an object whose names members did not read to the
// end (an escaped or repeated name, or very many): member by member as written.
func (rc *rawCheck) declaredSlow(v []byte, x *expansion, top bool) bool {
	clean := true
	ok := eachMember(v, func(k, mv []byte) bool {
		if top && string(k) == "jsonrpc" {
			return true // see walker.walk
		}
		if bytes.IndexByte(k, '\\') >= 0 {
			clean = false
			return false
		}
		child, declared, free := x.member(string(k))
		if !declared {
			clean = false
			return false
		}
		if !free && len(child) > 0 && (mv[0] == '{' || mv[0] == '[') && !rc.declared(mv, child, nil, false) {
			clean = false
			return false
		}
		return true
	})
	return ok && clean
}

// expansion is expandCached for the object or array v. Where the expansion depends
// on the value (a union: matches reads the type, and of an object the scalar members
// and which members are present), it is made from v's shallow value, which holds just
// that. nil when v cannot be read so (an escaped member name).
func (rc *rawCheck) expansion(nodes []node, v []byte) *expansion {
	isArr := v[0] == '['
	var cache *sync.Map
	var key unsafe.Pointer
	if len(nodes) == 1 && nodes[0].props == nil && nodes[0].doc != nil {
		if m, ok := nodes[0].s.(map[string]any); ok {
			cache, key = &nodes[0].doc.objExp, reflect.ValueOf(m).UnsafePointer()
			if isArr {
				cache = &nodes[0].doc.arrExp
			}
			if e, ok := cache.Load(key); ok {
				return e.(*expansion)
			}
		}
	}
	if cache != nil {
		if _, dep := nodes[0].doc.dependent.Load(key); !dep {
			var probe any = map[string]any(nil)
			if isArr {
				probe = []any(nil)
			}
			if x := expandCached(nodes, probe); x.cached {
				return x
			}
			nodes[0].doc.dependent.Store(key, true)
		}
	}
	var shapeKey []byte
	if cache != nil && !isArr {
		if sh := nodes[0].doc.shapeOf(key, nodes); sh != nil {
			if kvs, ok, plain := rc.members(v); ok && plain {
				if k, ok := sh.key(rc.keyBuf[:0], key, kvs); ok {
					rc.keyBuf = k
					d := nodes[0].doc
					d.byObjsMu.RLock()
					x := d.byShape[string(k)]
					d.byObjsMu.RUnlock()
					if x != nil {
						return x
					}
					shapeKey = k
				}
			}
		}
	}
	var shallow any = []any(nil)
	if !isArr {
		m, ok := rc.shallowObject(v)
		if !ok {
			return nil
		}
		shallow = m
	}
	objs, open, _ := expand(nodes, shallow)
	if isArr {
		return &expansion{objs: objs, open: open}
	}
	x := sharedExpansion(objs, open)
	if shapeKey != nil {
		d := nodes[0].doc
		d.byObjsMu.Lock()
		if d.byShape == nil {
			d.byShape = map[string]*expansion{}
		}
		if len(d.byShape) < maxKeptShapes {
			d.byShape[string(shapeKey)] = x
		}
		d.byObjsMu.Unlock()
	}
	return x
}

// maxKeptShapes bounds the expansions a document keeps by shape.
const maxKeptShapes = 4096

// sharedExpansion is the expansion of the object schemas objs (the result of expand
// on some value): the same objs give the same answers whatever the value, so the one
// kept for them (by their document) is used, its members read once.
func sharedExpansion(objs []node, open bool) *expansion {
	const maxObjs, maxKept = 16, 4096
	if len(objs) == 0 || len(objs) > maxObjs {
		return &expansion{objs: objs, open: open}
	}
	d := objs[0].doc
	var buf [1 + maxObjs*9]byte
	key := append(buf[:0], b2u(open))
	for _, o := range objs {
		m, ok := o.s.(map[string]any)
		if o.doc != d || o.props != nil || !ok {
			return &expansion{objs: objs, open: open}
		}
		key = binary.LittleEndian.AppendUint64(key, uint64(uintptr(reflect.ValueOf(m).UnsafePointer())))
		key = append(key, b2u(o.envelope))
	}
	d.byObjsMu.RLock()
	x := d.byObjs[string(key)]
	d.byObjsMu.RUnlock()
	if x != nil {
		return x
	}
	x = &expansion{objs: objs, open: open, cached: true}
	d.byObjsMu.Lock()
	if d.byObjs == nil {
		d.byObjs = map[string]*expansion{}
	}
	if len(d.byObjs) < maxKept {
		d.byObjs[string(key)] = x
	}
	d.byObjsMu.Unlock()
	return x
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// shallowObject is the object v with its scalar members decoded and the others empty
// objects and arrays: all that matches reads of a value. Its names and strings are
// v's bytes, not copies: the map must not outlive the call that made it (expand reads
// it and keeps nothing of it).
func (rc *rawCheck) shallowObject(v []byte) (map[string]any, bool) {
	out := make(map[string]any, 8)
	if kvs, ok, plain := rc.members(v); plain {
		for _, kv := range kvs {
			x, ok := shallowValue(kv.v)
			if !ok {
				return out, false
			}
			out[bytesString(kv.k)] = x
		}
		return out, ok
	}
	plain := true
	ok := eachMember(v, func(k, val []byte) bool {
		if bytes.IndexByte(k, '\\') >= 0 {
			plain = false
			return false
		}
		x, ok := shallowValue(val)
		if !ok {
			plain = false
			return false
		}
		out[bytesString(k)] = x
		return true
	})
	return out, ok && plain
}

// shallowValue is a shallow object's member: a scalar decoded (a string without
// escapes as v's bytes), an object or array empty.
func shallowValue(v []byte) (any, bool) {
	switch v[0] {
	case '{':
		return emptyObject, true
	case '[':
		return emptyArray, true
	case '"':
		if in := v[1 : len(v)-1]; bytes.IndexByte(in, '\\') < 0 {
			return bytesString(in), true // what decode gives a string without escapes
		}
	case 't', 'f', 'n':
		switch string(v) {
		case "true":
			return true, true
		case "false":
			return false, true
		case "null":
			return nil, true
		}
	default:
		if numberChars(v) {
			return json.Number(bytesString(v)), true // what decode gives
		}
	}
	x, err := decode(v)
	return x, err == nil
}

// numberChars reports whether v is not empty and made only of the characters decode
// reads a number of.
func numberChars(v []byte) bool {
	for _, c := range v {
		switch c {
		case '-', '+', '.', 'e', 'E', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		default:
			return false
		}
	}
	return len(v) > 0
}

// emptyObject and emptyArray stand for a shallow object's members that are objects
// and arrays (matches reads only their type).
var (
	emptyObject any = map[string]any{}
	emptyArray  any = []any{}
)

// bytesString is b as a string without a copy; b must not change while it is used.
func bytesString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}
