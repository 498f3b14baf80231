package validate

import "github.com/codexrec/codexrec/schema"

// ExampleLimit is how many findings of one rule and method a Result lists; the rest
// are counted in Result.Elided. A hostile recording can break a rule at every frame
// (a million findings): kept whole, the findings would outgrow the recording. The
// bounds are check's, so both commands list the same amount of a recording.
const ExampleLimit = 1000

// ruleLimit bounds the findings listed of one rule over all its methods, and
// elidedLimit the methods Elided names one by one per rule (a recording can use a
// new method at every frame); past it they are counted under the method "*".
const (
	ruleLimit   = 10 * ExampleLimit
	elidedLimit = 1000
)

// Elided counts the findings of one rule and method a Result does not list, past
// ExampleLimit (Method "*": past the methods named one by one).
type Elided struct {
	Rule   schema.Rule
	Method string
	Count  int
}

// elider decides which findings a Result lists, in the order they are found (the
// recording's), and counts the others.
type elider struct {
	kept    map[elideKey]int    // findings listed
	perRule map[schema.Rule]int // findings listed of a rule
	methods map[schema.Rule]int // methods named in Elided
	index   map[elideKey]int    // -> index in Result.Elided
}

type elideKey struct {
	rule   schema.Rule
	method string
}

// keep reports whether f is listed; if not, it is counted in r.Elided.
func (e *elider) keep(r *Result, f *schema.Finding) bool {
	if e.kept == nil {
		e.kept, e.perRule, e.methods, e.index = map[elideKey]int{}, map[schema.Rule]int{}, map[schema.Rule]int{}, map[elideKey]int{}
	}
	k := elideKey{f.Rule, f.Method}
	if n := e.kept[k]; n < ExampleLimit && e.perRule[f.Rule] < ruleLimit {
		e.kept[k] = n + 1
		e.perRule[f.Rule]++
		return true
	}
	i, ok := e.index[k]
	if !ok && e.methods[f.Rule] >= elidedLimit {
		k.method = "*"
		i, ok = e.index[k]
	}
	if !ok {
		if k.method != "*" {
			e.methods[f.Rule]++
		}
		i = len(r.Elided)
		e.index[k] = i
		r.Elided = append(r.Elided, Elided{Rule: k.rule, Method: k.method})
	}
	r.Elided[i].Count++
	return false
}
