package schema

import (
	"io/fs"
	"math/big"
	"reflect"
	"testing"

	"github.com/codexrec/codexrec/wire"
)

// TestFastNodesSameAsFromCompiledCopy: the fast check reads a schema file's tagged
// unions rewritten as it reaches them (fbuilder.view) instead of from a rewritten
// copy of the whole file made up front (taggedCopy). For every route of every
// embedded version, in both sets, the nodes it builds are the ones the copy gives.
func TestFastNodesSameAsFromCompiledCopy(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every route of every embedded version twice")
	}
	for _, version := range Embedded() {
		lazy, err := Load(version)
		if err != nil {
			t.Fatal(err)
		}
		copied, err := Load(version)
		if err != nil {
			t.Fatal(err)
		}
		// As before: each file's document is its rewritten copy, read in place.
		copied.mu.Lock()
		comp := copied.compilerLocked()
		for mode := range 2 {
			err := fs.WalkDir(copied.fsys[mode], ".", func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				b, err := readShared(copied.fsys[mode], p)
				if err != nil {
					return err
				}
				root, err := decode(b)
				if err != nil {
					return err
				}
				key := modeName(mode) + "/" + p
				comp.docs[key] = &document{path: key, root: taggedCopy(root)}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		copied.mu.Unlock()
		n := 0
		check := func(what string, a, b *route) {
			t.Helper()
			if (a.err == nil) != (b.err == nil) {
				t.Fatalf("%s %s: errors differ: %v, %v", version, what, a.err, b.err)
			}
			if a.err == nil && !sameFnode(a.fast, b.fast, map[[2]*fnode]bool{}) {
				t.Errorf("%s %s: the fast check's nodes differ from the compiled copy's", version, what)
			}
			n++
		}
		eachRoute(lazy, func(mode int, k wire.Kind, m *Method) {
			check(modeName(mode)+" "+k.String()+" "+m.Name, lazy.routeFor(mode, k, m), copied.routeFor(mode, k, m))
		})
		for mode := range 2 {
			check(modeName(mode)+" error", lazy.routeFor(mode, wire.KindError, nil), copied.routeFor(mode, wire.KindError, nil))
		}
		t.Logf("%s: %d routes alike", version, n)
	}
}

// sameFnode compares two node graphs (which may cycle) by what they check.
func sameFnode(a, b *fnode, seen map[[2]*fnode]bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	if seen[[2]*fnode{a, b}] {
		return true
	}
	seen[[2]*fnode{a, b}] = true
	if a.unsupported != b.unsupported || a.hasEnum != b.hasEnum || a.format != b.format ||
		!reflect.DeepEqual(a.boolean, b.boolean) || !reflect.DeepEqual(a.types, b.types) ||
		!reflect.DeepEqual(a.constv, b.constv) || !reflect.DeepEqual(a.enum, b.enum) ||
		!reflect.DeepEqual(a.required, b.required) || !reflect.DeepEqual(a.minLength, b.minLength) ||
		!reflect.DeepEqual(a.maxLength, b.maxLength) || !sameRat(a.minimum, b.minimum) || !sameRat(a.maximum, b.maximum) {
		return false
	}
	if len(a.props) != len(b.props) {
		return false
	}
	for k, x := range a.props {
		if !sameFnode(x, b.props[k], seen) {
			return false
		}
	}
	for _, pair := range [][2]*fnode{{a.ref, b.ref}, {a.not, b.not}, {a.ifS, b.ifS}, {a.then, b.then}, {a.els, b.els}} {
		if !sameFnode(pair[0], pair[1], seen) {
			return false
		}
	}
	for _, pair := range [][2][]*fnode{{a.allOf, b.allOf}, {a.anyOf, b.anyOf}, {a.oneOf, b.oneOf}} {
		if !sameList(pair[0], pair[1], seen) {
			return false
		}
	}
	return sameAny(a.addl, b.addl, seen) && sameAny(a.items, b.items, seen) && sameAny(a.addItems, b.addItems, seen)
}

func sameList(a, b []*fnode, seen map[[2]*fnode]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameFnode(a[i], b[i], seen) {
			return false
		}
	}
	return true
}

// sameAny compares the fields that hold nil, a bool, a node or a list of nodes.
func sameAny(a, b any, seen map[[2]*fnode]bool) bool {
	switch x := a.(type) {
	case *fnode:
		y, ok := b.(*fnode)
		return ok && sameFnode(x, y, seen)
	case []*fnode:
		y, ok := b.([]*fnode)
		return ok && sameList(x, y, seen)
	}
	return reflect.DeepEqual(a, b)
}

func sameRat(a, b *big.Rat) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Cmp(b) == 0
}
