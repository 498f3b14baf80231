package normalize

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/internal/jsonx"
)

// maskNone means no ancestor asked for masking.
const maskNone = ""

// walker normalises one message; path is kept only when ignore patterns need it.
type walker struct {
	n     *Normalizer
	path  []string
	depth int
	// Scratch stacks: an object's members and an array's elements gather here and
	// are copied out at their exact size, instead of growing a slice per object.
	members []Member
	elems   []any
}

// value normalises r, the value of member key of an object that is itself the value of
// member parent (array elements take their array's key). inherited is the mask
// category of an enclosing member: every scalar below it is masked.
func (w *walker) value(r gjson.Result, inherited, key, parent string) any {
	switch r.Type {
	case gjson.Null:
		return nil
	case gjson.True:
		if inherited != maskNone {
			return Masked{inherited, "bool"}
		}
		return true
	case gjson.False:
		if inherited != maskNone {
			return Masked{inherited, "bool"}
		}
		return false
	case gjson.Number:
		if inherited != maskNone {
			return Masked{inherited, "number"}
		}
		return json.Number(r.Raw)
	case gjson.String:
		if inherited != maskNone {
			return Masked{inherited, "string"}
		}
		return w.str(r.Str, key, parent)
	}
	if w.depth >= MaxDepth {
		return Deep(strings.Clone(r.Raw))
	}
	if r.IsArray() {
		return w.array(r, inherited, key, parent)
	}
	return w.object(r, inherited, key)
}

func (w *walker) array(r gjson.Result, inherited, key, parent string) any {
	start := len(w.elems)
	i := 0
	r.ForEach(func(_, v gjson.Result) bool {
		if w.n.ignore != nil {
			w.path = append(w.path, strconv.Itoa(i))
			i++
			if w.ignored() {
				w.path = w.path[:len(w.path)-1]
				return true
			}
		}
		w.depth++
		e := w.value(v, inherited, key, parent)
		w.elems = append(w.elems, e)
		w.depth--
		if w.n.ignore != nil {
			w.path = w.path[:len(w.path)-1]
		}
		return true
	})
	out := make([]any, len(w.elems)-start)
	copy(out, w.elems[start:])
	clear(w.elems[start:])
	w.elems = w.elems[:start]
	return out
}

func (w *walker) object(r gjson.Result, inherited, parent string) any {
	start := len(w.members)
	top := w.depth == 0
	r.ForEach(func(k, v gjson.Result) bool {
		key := k.Str
		if w.n.ignore != nil {
			w.path = append(w.path, key)
			defer func() { w.path = w.path[:len(w.path)-1] }()
			if w.ignored() {
				return true
			}
		}
		cat := inherited
		if cat == maskNone && w.n.builtin {
			cat = w.n.category(key, top)
		}
		var nv any
		w.depth++
		switch {
		case cat == catPathRewrite:
			nv = w.pathValue(v, key)
		case cat != maskNone && v.Type == gjson.Null:
			nv = nil // absence of a value is not run-varying: keep null visible
		case cat != maskNone:
			w.learn(v, key)
			nv = w.value(v, cat, key, parent)
		default:
			nv = w.value(v, maskNone, key, parent)
		}
		w.depth--
		w.members = append(w.members, Member{key, nv})
		return true
	})
	out := make(Object, len(w.members)-start)
	copy(out, w.members[start:])
	clear(w.members[start:])
	w.members = w.members[:start]
	return sortMembers(out)
}

func sortMembers(o Object) Object {
	if slices.IsSortedFunc(o, func(a, b Member) int { return strings.Compare(a.Key, b.Key) }) {
		return dedupe(o)
	}
	slices.SortStableFunc(o, func(a, b Member) int { return strings.Compare(a.Key, b.Key) })
	return dedupe(o)
}

// dedupe keeps the last of duplicate keys, as encoding/json does.
func dedupe(o Object) Object {
	for i := 1; i < len(o); i++ {
		if o[i].Key == o[i-1].Key {
			out := o[:i-1]
			for j := i; j < len(o); j++ {
				if j+1 < len(o) && o[j+1].Key == o[j].Key {
					continue
				}
				out = append(out, o[j])
			}
			return out
		}
	}
	return o
}

func (w *walker) ignored() bool {
	for _, p := range w.n.ignore {
		if p.Match(w.path) {
			return true
		}
	}
	return false
}

// learn records the path roots a masked member reveals.
func (w *walker) learn(v gjson.Result, key string) {
	var placeholder string
	switch {
	case key == "codexHome":
		placeholder = "<codexHome>"
	case key == "cwd":
		placeholder = "<cwd>"
	case strings.HasSuffix(key, "Root") || strings.HasSuffix(key, "Roots"):
		placeholder = "<root>"
	default:
		return
	}
	if v.Type == gjson.String {
		w.n.learnRoot(v.Str, placeholder)
	} else if v.IsArray() {
		v.ForEach(func(_, e gjson.Result) bool {
			if e.Type == gjson.String {
				w.n.learnRoot(e.Str, placeholder)
			}
			return true
		})
	}
}

// pathValue rewrites a path-valued member: learned roots become placeholders, and a
// path that is still machine- or run-specific (absolute, or carrying an id or a date)
// is masked.
func (w *walker) pathValue(v gjson.Result, key string) any {
	switch {
	case v.Type == gjson.String:
		s := v.Str
		if s == "" {
			return s
		}
		if s[0] == '/' && !w.n.underRoot(s) || firstUUID(s) >= 0 || hasDate(s) {
			return Masked{"path", "string"}
		}
		return w.str(s, key, "")
	case v.IsArray():
		out := []any{}
		v.ForEach(func(_, e gjson.Result) bool {
			out = append(out, w.pathValue(e, key))
			return true
		})
		return out
	}
	return w.value(v, maskNone, key, "")
}

func (n *Normalizer) underRoot(s string) bool {
	for _, r := range n.roots {
		if strings.HasPrefix(s, r.path) && (len(s) == len(r.path) || s[len(r.path)] == '/') {
			return true
		}
	}
	return false
}

// str normalises a string that no key rule masked; key and parent name where it
// sits, for the kind of the symbols of ids in it.
func (w *walker) str(s, key, parent string) any {
	if !w.n.builtin {
		if t, ok := w.jsonText(s); ok {
			return t
		}
		return s
	}
	if isDateTime(s) {
		return Masked{"time", "string"}
	}
	if t, ok := w.jsonText(s); ok {
		return t
	}
	s = w.n.replaceRoots(s)
	s = replaceUUIDs(s, func(u string) string { return w.n.symbol(u, idKind(key, parent)) })
	return stripRedactionHashes(s)
}

// jsonText parses a string holding a JSON object or array.
func (w *walker) jsonText(s string) (any, bool) {
	t := strings.TrimSpace(s)
	if len(t) < 2 || (t[0] != '{' || t[len(t)-1] != '}') && (t[0] != '[' || t[len(t)-1] != ']') ||
		jsonx.DeeperThan(unsafe.Slice(unsafe.StringData(t), len(t)), jsonx.MaxDepth) || !gjson.Valid(t) {
		return nil, false
	}
	return JSONText{w.value(gjson.Parse(t), maskNone, "", "")}, true
}

func (n *Normalizer) replaceRoots(s string) string {
	for _, r := range n.roots {
		if strings.Contains(s, r.path) {
			s = strings.ReplaceAll(s, r.path, r.placeholder)
		}
	}
	return s
}
