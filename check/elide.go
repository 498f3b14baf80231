package check

// ExampleLimit is how many findings of one rule and method a Result keeps; the rest
// are counted in Result.Elided. A hostile recording can break a rule at every frame
// (a million schema findings): kept whole, the findings would outgrow the recording.
const ExampleLimit = 1000

// ruleLimit bounds the findings kept of one rule over all its methods, and
// elidedLimit the methods Elided names one by one per rule (a recording can use a
// new method at every frame); past it they are counted under the method "*".
const (
	ruleLimit   = 10 * ExampleLimit
	elidedLimit = 1000
)

// Elided counts the findings of one rule, method and severity a Result does not
// list, past ExampleLimit (Method "*": past the methods listed one by one).
type Elided struct {
	Rule     string   `json:"rule"`
	Method   string   `json:"method,omitempty"`
	Severity Severity `json:"severity"`
	Count    int      `json:"count"`
}

// elider decides which findings a Result keeps and counts the others.
type elider struct {
	kept    map[[2]string]int // rule, method -> findings kept
	perRule map[string]int    // rule -> findings kept
	methods map[string]int    // rule -> methods in Elided
	index   map[elideKey]int  // -> index in Result.Elided
}

type elideKey struct {
	rule, method string
	sev          Severity
}

// keep reports whether f is listed; if not, it is counted in r.Elided.
func (e *elider) keep(r *Result, f *Finding) bool {
	if e.kept == nil {
		e.kept, e.perRule, e.methods, e.index = map[[2]string]int{}, map[string]int{}, map[string]int{}, map[elideKey]int{}
	}
	k := [2]string{f.Rule, f.Method}
	if n := e.kept[k]; n < ExampleLimit && e.perRule[f.Rule] < ruleLimit {
		e.kept[k] = n + 1
		e.perRule[f.Rule]++
		return true
	}
	ek := elideKey{f.Rule, f.Method, f.Severity}
	i, ok := e.index[ek]
	if !ok {
		if e.methods[f.Rule] >= elidedLimit {
			ek.method = "*"
			i, ok = e.index[ek]
		}
	}
	if !ok {
		if ek.method != "*" {
			e.methods[f.Rule]++
		}
		i = len(r.Elided)
		e.index[ek] = i
		r.Elided = append(r.Elided, Elided{Rule: ek.rule, Method: ek.method, Severity: ek.sev})
	}
	r.Elided[i].Count++
	return false
}

// elided is how many findings of rule r does not list.
func (r *Result) elided(rule string) int {
	n := 0
	for _, e := range r.Elided {
		if e.Rule == rule {
			n += e.Count
		}
	}
	return n
}
