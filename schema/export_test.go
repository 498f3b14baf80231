package schema

import (
	"fmt"
	"sync/atomic"

	"github.com/codexrec/codexrec/internal/jsonschema"
)

// Every test in this package runs with the fast check cross-checked against
// jsonschema: a "valid" the library disagrees with, or an "invalid" it accepts, panics
// with the schema and the value. Benchmarks turn it off (SetCrossCheck).
var crossCheck atomic.Bool

func init() {
	crossCheck.Store(true)
	rawPath = false
	fastHook = func(s *Set, r *route, v any, fast verdict) {
		if crossCheck.Load() {
			sch, err := s.compiledRoute(r)
			if err != nil {
				panic(fmt.Sprintf("route %s does not compile: %v", r.loc, err))
			}
			if err := agrees(sch, v, fast); err != nil {
				panic(err)
			}
		}
	}
}

// SetCrossCheck turns the cross-check of the fast path on or off (for benchmarks);
// off, messages take the raw check (raw.go) as they do outside tests.
func SetCrossCheck(on bool) { crossCheck.Store(on); rawPath = !on }

// agrees reports where the fast verdict and jsonschema differ.
func agrees(s *jsonschema.Schema, v any, fast verdict) error {
	err := s.Validate(v)
	switch {
	case fast == valid && err != nil:
		return fmt.Errorf("fast check said valid, jsonschema: %v\nschema %s\nvalue %#v", err, s.Location, v)
	case fast == invalid && err == nil:
		return fmt.Errorf("fast check said invalid, jsonschema valid\nschema %s\nvalue %#v", s.Location, v)
	}
	return nil
}

// OneLine is what a finding's reason quotes of a value.
var OneLine = oneLine
