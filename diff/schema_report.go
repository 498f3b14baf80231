package diff

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
)

// SchemaReport is the outcome of comparing two schema sets.
type SchemaReport struct {
	Old string `json:"old"`
	New string `json:"new"`
	// Counts per tier.
	Breaking int `json:"breaking"`
	Warning  int `json:"warning"`
	Info     int `json:"info"`
	// MethodsAdded and MethodsRemoved list methods as "client request NAME",
	// "server notification NAME".
	MethodsAdded   []string `json:"methodsAdded"`
	MethodsRemoved []string `json:"methodsRemoved"`
	// TypesChanged, TypesAdded and TypesRemoved list named types.
	TypesChanged []string `json:"typesChanged"`
	TypesAdded   []string `json:"typesAdded"`
	TypesRemoved []string `json:"typesRemoved"`
	// Changes are every change, methods first, then types by name.
	Changes []SchemaChange `json:"changes"`
}

// SchemaChange is one classified change.
type SchemaChange struct {
	Rule string `json:"rule"` // stable id, e.g. response-enum-value-added
	Tier Tier   `json:"tier"`
	// Subject is a method ("client request thread/start") or a type name.
	Subject string `json:"subject"`
	// Uses says who sends the type: client, server, both or unused.
	Uses string `json:"uses,omitempty"`
	// Path locates the change inside the type: /field, /* for array items, {key}
	// for a union variant (keyed by its tag, reference or title), /{*} for map values.
	Path string `json:"path,omitempty"`
	Old  string `json:"old,omitempty"`
	New  string `json:"new,omitempty"`
}

// schemaValueMax bounds the old and new texts of a change.
const schemaValueMax = 100

// methodRules are the rule and tier of a method added or removed, by sender and kind.
var methodRules = map[string]struct {
	added, removed Tier
}{
	"client request":      {TierInfo, TierBreaking}, // the client can no longer call it
	"client notification": {TierInfo, TierBreaking}, // the server no longer understands it
	"server request":      {TierWarning, TierInfo},  // the client must now answer it
	"server notification": {TierInfo, TierWarning},  // something the client waits for stops coming
}

// methodRule is the rule id of a method of sender and kind sk ("server request")
// being added or removed: server-request-added.
func methodRule(sk, change string) string { return strings.ReplaceAll(sk, " ", "-") + "-" + change }

// CompareSchemas compares two prepared schema sets.
func CompareSchemas(old, new *SchemaSet) *SchemaReport {
	r := &SchemaReport{Old: old.Name, New: new.Name, MethodsAdded: []string{}, MethodsRemoved: []string{},
		TypesChanged: []string{}, TypesAdded: []string{}, TypesRemoved: []string{}, Changes: []SchemaChange{}}
	c := &comparer{old: old, new: new, seen: map[[2]*node]bool{}}
	for _, k := range slices.Sorted(maps.Keys(union(old.Methods, new.Methods))) {
		om, inOld := old.Methods[k]
		nm, inNew := new.Methods[k]
		sk := nm.Sender + " " + nm.Kind
		switch {
		case !inNew:
			sk = om.Sender + " " + om.Kind
			r.MethodsRemoved = append(r.MethodsRemoved, k)
			r.add(SchemaChange{Rule: methodRule(sk, "removed"), Tier: methodRules[sk].removed, Subject: k})
		case !inOld:
			r.MethodsAdded = append(r.MethodsAdded, k)
			r.add(SchemaChange{Rule: methodRule(sk, "added"), Tier: methodRules[sk].added, Subject: k})
		default:
			// The same method with differently named params or result types: compare them.
			params, result := nm.senders()
			from := len(r.Changes)
			r.compareRefs(c, k, "/params", om.Params, nm.Params, params)
			r.compareRefs(c, k, "/result", om.Result, nm.Result, result)
			r.methodSubject(from)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(union(old.types, new.types))) {
		if unionTypes[name] {
			continue // their variants are the methods, compared above
		}
		a, inOld := old.types[name]
		b, inNew := new.types[name]
		uses := old.usage[name] | new.usage[name]
		switch {
		case !inNew:
			r.TypesRemoved = append(r.TypesRemoved, name)
			r.add(SchemaChange{Rule: "type-removed", Tier: TierInfo, Subject: name, Uses: uses.String()})
		case !inOld:
			r.TypesAdded = append(r.TypesAdded, name)
			r.add(SchemaChange{Rule: "type-added", Tier: TierInfo, Subject: name, Uses: uses.String()})
		default:
			c.out = c.out[:0]
			c.compare("", a, b)
			if len(c.out) > 0 {
				r.TypesChanged = append(r.TypesChanged, name)
			}
			r.classify(c.out, name, uses)
		}
	}
	return r
}

// unionTypes are the method unions; comparing methods covers them.
var unionTypes = map[string]bool{"ClientRequest": true, "ClientNotification": true, "ServerRequest": true, "ServerNotification": true}

// compareRefs compares a method's params or result when the type's name changed.
func (r *SchemaReport) compareRefs(c *comparer, method, path, a, b string, u usage) {
	switch {
	case a == b:
		return
	case a == "":
		r.classify([]rawChange{{fieldAdded, path, "", b}}, method, u)
		return
	case b == "":
		r.classify([]rawChange{{fieldRemoved, path, a, ""}}, method, u)
		return
	}
	c.out = c.out[:0]
	c.compare(path, &node{ref: a}, &node{ref: b})
	r.classify(c.out, method, u)
}

// methodSubject marks changes whose subject is a method: their direction is in the
// rule (params, result), not a property of the subject.
func (r *SchemaReport) methodSubject(from int) {
	for i := from; i < len(r.Changes); i++ {
		r.Changes[i].Uses = ""
	}
}

// classify gives each raw change its rule and tier. A type both sides send is judged
// by the stricter of the two readings; an unused type likewise.
func (r *SchemaReport) classify(raw []rawChange, subject string, u usage) {
	for _, rc := range raw {
		var rule string
		var tier Tier
		switch u {
		case usedByClient, usedByServer:
			rule, tier = ruleFor(rc.shape, u)
		default:
			rc1, t1 := ruleFor(rc.shape, usedByClient)
			rc2, t2 := ruleFor(rc.shape, usedByServer)
			rule, tier = rc1, t1
			if t2 > t1 {
				rule, tier = rc2, t2
			}
		}
		r.add(SchemaChange{Rule: rule, Tier: tier, Subject: subject, Uses: u.String(), Path: rc.path,
			Old: shorten(rc.old, schemaValueMax), New: shorten(rc.new, schemaValueMax)})
	}
}

func (r *SchemaReport) add(c SchemaChange) {
	switch c.Tier {
	case TierBreaking:
		r.Breaking++
	case TierWarning:
		r.Warning++
	default:
		r.Info++
	}
	r.Changes = append(r.Changes, c)
}

// Worst is the highest tier of any change, and false when there is no change.
func (r *SchemaReport) Worst() (Tier, bool) {
	switch {
	case r.Breaking > 0:
		return TierBreaking, true
	case r.Warning > 0:
		return TierWarning, true
	case r.Info > 0:
		return TierInfo, true
	}
	return 0, false
}

// shorten cuts s to max bytes, keeping UTF-8 intact, with "…" marking the cut.
func shorten(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// WriteText writes the report for people: counts, methods, then changes by type.
func (r *SchemaReport) WriteText(w io.Writer, colour bool) error {
	bw := bufio.NewWriter(w)
	p := painter(colour)
	fmt.Fprintf(bw, "%s\n", p.paint(ansiBold, fmt.Sprintf("schema diff %s → %s: %d breaking, %d warning, %d info", r.Old, r.New, r.Breaking, r.Warning, r.Info)))
	fmt.Fprintf(bw, "  methods: %d added, %d removed; types: %d changed, %d added, %d removed\n",
		len(r.MethodsAdded), len(r.MethodsRemoved), len(r.TypesChanged), len(r.TypesAdded), len(r.TypesRemoved))
	last := ""
	for _, c := range r.Changes {
		if c.Subject != last {
			head := c.Subject
			if c.Uses != "" {
				head += " (sent by " + c.Uses + ")"
			}
			fmt.Fprintf(bw, "%s\n", p.paint(ansiCyan, head))
			last = c.Subject
		}
		tier := fmt.Sprintf("%-8s", c.Tier)
		switch c.Tier {
		case TierBreaking:
			tier = p.paint(ansiRed, tier)
		case TierWarning:
			tier = p.paint(ansiYellow, tier)
		}
		line := fmt.Sprintf("  %s %-34s %s", tier, c.Rule, c.Path)
		switch {
		case c.Old != "" && c.New != "":
			line += fmt.Sprintf("  %s → %s", c.Old, c.New)
		case c.New != "":
			line += "  " + c.New
		case c.Old != "":
			line += "  (was " + c.Old + ")"
		}
		fmt.Fprintln(bw, strings.TrimRight(line, " "))
	}
	return bw.Flush()
}

// WriteJSON writes the report as one indented JSON document.
func (r *SchemaReport) WriteJSON(w io.Writer) error { return writeJSON(w, r) }

// Rules lists every rule id with its tier, for documentation and --list-rules.
func Rules() []SchemaChange {
	var out []SchemaChange
	for sk, t := range methodRules {
		out = append(out, SchemaChange{Rule: methodRule(sk, "added"), Tier: t.added}, SchemaChange{Rule: methodRule(sk, "removed"), Tier: t.removed})
	}
	for s := range shapeTiers {
		for _, u := range []usage{usedByClient, usedByServer} {
			rule, tier := ruleFor(s, u)
			out = append(out, SchemaChange{Rule: rule, Tier: tier})
		}
	}
	out = append(out, SchemaChange{Rule: "type-added", Tier: TierInfo}, SchemaChange{Rule: "type-removed", Tier: TierInfo})
	sort.Slice(out, func(i, j int) bool { return out[i].Rule < out[j].Rule })
	return out
}
