package schema

import (
	"testing"

	"github.com/codexrec/codexrec/wire"
)

// TestEveryEmbeddedRouteCompiles: an embedded set compiles a route only when a
// message needs jsonschema's finding (the fast check passes the rest), so a route that
// does not compile would go unnoticed until then. Every route of every embedded
// version, in both sets, compiles.
func TestEveryEmbeddedRouteCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles every route of every embedded version")
	}
	for _, version := range Embedded() {
		s, err := Load(version)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		eachRoute(s, func(mode int, k wire.Kind, m *Method) {
			r := s.routeFor(mode, k, m)
			if r.err != nil {
				t.Fatalf("%s %s %s: %v", version, modeName(mode), m.Name, r.err)
			}
			if _, err := s.compiledRoute(r); err != nil {
				t.Fatalf("%s %s %s %s: %v", version, modeName(mode), k, m.Name, err)
			}
			n++
		})
		for mode := range 2 {
			if _, err := s.compiledRoute(s.routeFor(mode, wire.KindError, nil)); err != nil {
				t.Fatalf("%s %s error route: %v", version, modeName(mode), err)
			}
		}
		t.Logf("%s: %d routes compiled", version, n)
	}
}

// eachRoute calls fn for every route of s's methods: each set a method is in, and a
// request's response too when its result type is known.
func eachRoute(s *Set, fn func(mode int, kind wire.Kind, m *Method)) {
	for _, m := range s.Methods() {
		for mode := range 2 {
			if m.branch[mode] < 0 {
				continue
			}
			fn(mode, m.Kind, &m)
			if m.Kind == wire.KindRequest && m.Result != "" {
				fn(mode, wire.KindResponse, &m)
			}
		}
	}
}
