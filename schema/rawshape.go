package schema

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"slices"
	"unsafe"
)

// A schema node whose expansion depends on the value (a union: expand asks matches
// which alternatives fit) reads little of an object: the values of the members some
// alternative's tag compares, and whether the members some alternative requires are
// present. Objects alike in those expand alike, so the raw check keeps the
// expansion by the node and what the object holds of them (its shape), and an object
// of a shape seen before skips the shallow copy and the expansion.

// shape is what expand can read of an object under one node: the tag members (their
// values) and the required members (their presence), each sorted.
type shape struct {
	tags, present []string
}

// maxShapeSteps bounds the nodes visited to find a shape; past it, the node's
// objects are expanded each time.
const maxShapeSteps = 4 * maxExpand

// shapeOf is the shape of objects under the node at key (nodes, one node); nil when
// it cannot be found in maxShapeSteps.
func (d *document) shapeOf(key unsafe.Pointer, nodes []node) *shape {
	if s, ok := d.shapes.Load(key); ok {
		return s.(*shape)
	}
	s := findShape(nodes)
	d.shapes.Store(key, s)
	return s
}

// findShape walks what expand can walk from nodes, every alternative taken, and
// collects the members that matches reads of each alternative.
func findShape(nodes []node) *shape {
	tags, present := map[string]bool{}, map[string]bool{}
	seen := map[unsafe.Pointer]bool{}
	work := append([]node(nil), nodes...)
	for steps := 0; len(work) > 0; steps++ {
		if steps == maxShapeSteps {
			return nil
		}
		n := work[len(work)-1]
		work = work[:len(work)-1]
		m, ok := n.s.(map[string]any)
		if n.props != nil || !ok {
			continue
		}
		if p := reflect.ValueOf(m).UnsafePointer(); seen[p] {
			continue
		} else {
			seen[p] = true
		}
		in := n.doc.info(m)
		if in.hasRef {
			if t := n.doc.resolve(in.ref); t != nil {
				work = append(work, node{doc: n.doc, s: t})
			}
		}
		for _, a := range in.allOf {
			work = append(work, node{doc: n.doc, s: a})
		}
		for _, alts := range in.alts {
			for _, a := range alts {
				if am, ok := a.(map[string]any); ok {
					if al := n.doc.info(am).alt(n.doc, am); !al.fixed {
						for _, t := range al.tags {
							tags[t.name] = true
						}
						for _, r := range al.required {
							present[r] = true
						}
					}
				}
				work = append(work, node{doc: n.doc, s: a})
			}
		}
	}
	s := &shape{}
	for name := range tags {
		s.tags = append(s.tags, name)
	}
	for name := range present {
		if !tags[name] {
			s.present = append(s.present, name)
		}
	}
	slices.Sort(s.tags)
	slices.Sort(s.present)
	return s
}

// maxShapeKey bounds a shape's key; an object with longer tag values is expanded.
const maxShapeKey = 256

// key appends to dst the key of the object kvs (plainly read: no name escaped or
// repeated) under the node at node: the node, then per tag member its absence, its
// kind (an object or array, which matches does not compare) or its bytes, then per
// required member its presence. ok is false when the key would be too long or when a
// member could not be read as shallowObject reads it (it would then fail).
func (s *shape) key(dst []byte, node unsafe.Pointer, kvs []rawKV) ([]byte, bool) {
	for _, kv := range kvs {
		if !shallowReadable(kv.v) {
			return dst, false
		}
	}
	dst = binary.LittleEndian.AppendUint64(dst, uint64(uintptr(node)))
	for _, name := range s.tags {
		v := memberValue(kvs, name)
		switch {
		case v == nil:
			dst = append(dst, 0)
		case v[0] == '{' || v[0] == '[':
			dst = append(dst, v[0])
		default:
			dst = binary.AppendUvarint(append(dst, 1), uint64(len(v)))
			dst = append(dst, v...)
		}
		if len(dst) > maxShapeKey {
			return dst, false
		}
	}
	for _, name := range s.present {
		dst = append(dst, b2u(memberValue(kvs, name) != nil))
	}
	return dst, true
}

// memberValue is the value of the member named name, nil when there is none.
func memberValue(kvs []rawKV, name string) []byte {
	for _, kv := range kvs {
		if string(kv.k) == name {
			return kv.v
		}
	}
	return nil
}

// shallowReadable reports whether shallowValue reads v.
func shallowReadable(v []byte) bool {
	switch v[0] {
	case '{', '[':
		return true
	case '"':
		if bytes.IndexByte(v, '\\') < 0 {
			return true
		}
	case 't', 'f', 'n':
		if s := string(v); s == "true" || s == "false" || s == "null" {
			return true
		}
	default:
		if numberChars(v) {
			return true
		}
	}
	_, ok := shallowValue(v)
	return ok
}
