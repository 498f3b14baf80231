package schema

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/wire"
)

// Method is one entry of a version's method table, derived from the union files
// ClientRequest.json, ClientNotification.json, ServerRequest.json and
// ServerNotification.json (never written by hand).
type Method struct {
	Name string
	Kind wire.Kind      // KindRequest or KindNotification
	From wire.Direction // who sends it: ClientToServer or ServerToClient
	// Params is the params type's name ("TurnStartParams"), "" when the method takes none.
	Params string
	// Result is the result type's name for a request, from the protocol's request
	// definitions (versions/methods.json; else Params with "Params" replaced by
	// "Response"), "" when the version has no such schema file (then results are not
	// checked).
	Result string
	// Experimental marks a method that only the --experimental set declares.
	Experimental bool

	union  string // the union file, e.g. "ClientRequest.json"
	branch [2]int // index in the union's oneOf per set (stable, experimental); -1 when absent
	idx    int    // index into Set.routes
}

type routeKey struct {
	from wire.Direction
	kind wire.Kind
	name string
}

var unions = []struct {
	file string
	from wire.Direction
	kind wire.Kind
}{
	{"ClientRequest.json", wire.ClientToServer, wire.KindRequest},
	{"ClientNotification.json", wire.ClientToServer, wire.KindNotification},
	{"ServerRequest.json", wire.ServerToClient, wire.KindRequest},
	{"ServerNotification.json", wire.ServerToClient, wire.KindNotification},
}

func newSet(version string, stable, exp fs.FS, embedded bool) (*Set, error) {
	s := &Set{version: version, fsys: [2]fs.FS{stable, exp}, methods: map[routeKey]*Method{},
		docs: map[string]any{}, embedded: embedded}
	for mode := range 2 {
		idx, err := indexTypes(s.fsys[mode])
		if err != nil {
			return nil, err
		}
		s.index[mode] = idx
	}
	for mode := range 2 {
		for _, u := range unions {
			b, err := readShared(s.fsys[mode], u.file)
			if err != nil {
				return nil, fmt.Errorf("%s set: %w", modeName(mode), err)
			}
			if !embedded && !gjson.ValidBytes(b) {
				return nil, fmt.Errorf("%s set: %s: not JSON", modeName(mode), u.file)
			}
			for i, br := range gjson.GetBytes(b, "oneOf").Array() {
				name := br.Get("properties.method.enum.0").Str
				if name == "" {
					return nil, fmt.Errorf("%s set: %s: oneOf/%d has no method enum", modeName(mode), u.file, i)
				}
				k := routeKey{u.from, u.kind, name}
				m := s.methods[k]
				if m == nil {
					m = &Method{Name: name, Kind: u.kind, From: u.from, union: u.file, branch: [2]int{-1, -1}, idx: len(s.methods)}
					m.Params = paramsType(br.Get("properties.params"))
					if u.kind == wire.KindRequest {
						m.Result = resultType(u.from, name, m.Params, s.index[1])
					}
					s.methods[k] = m
				}
				m.branch[mode] = i
			}
		}
	}
	s.routes = make([]routeSlots, len(s.methods))
	for _, m := range s.methods {
		m.Experimental = m.branch[0] < 0
		s.list = append(s.list, *m)
	}
	sort.Slice(s.list, func(i, j int) bool {
		a, b := s.list[i], s.list[j]
		if a.From != b.From {
			return a.From < b.From
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Name < b.Name
	})
	if len(s.list) == 0 {
		return nil, fmt.Errorf("no methods found")
	}
	return s, nil
}

// paramsType finds the type name a branch's params refer to, directly or as the
// non-null alternative of an anyOf/oneOf ("params": {"anyOf": [{"$ref"}, {"type":"null"}]}).
func paramsType(p gjson.Result) string {
	if r := p.Get("$ref").Str; r != "" {
		return path.Base(r)
	}
	for _, alt := range append(p.Get("anyOf").Array(), p.Get("oneOf").Array()...) {
		if r := alt.Get("$ref").Str; r != "" {
			return path.Base(r)
		}
	}
	return ""
}

// indexTypes maps every schema file's type name to its path (v2/TurnStartResponse.json).
func indexTypes(fsys fs.FS) (map[string]string, error) {
	idx := map[string]string{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".json") {
			idx[strings.TrimSuffix(path.Base(p), ".json")] = p
		}
		return nil
	})
	return idx, err
}

func modeName(mode int) string {
	if mode == 1 {
		return Experimental
	}
	return Stable
}

// Methods is the method table, ordered by sender, kind and name.
func (s *Set) Methods() []Method { return s.list }

// Method looks up the method name sent by from as a request or notification.
func (s *Set) Method(from wire.Direction, kind wire.Kind, name string) (Method, bool) {
	m, ok := s.methods[routeKey{from, kind, name}]
	if !ok {
		return Method{}, false
	}
	return *m, true
}
