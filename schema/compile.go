package schema

import (
	"fmt"
	"github.com/codexrec/codexrec/internal/jsonx"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/codexrec/codexrec/internal/jsonschema"
	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/wire"
)

// baseURL is where the schema files live as far as the compiler is concerned; the
// loader serves them from the set's fs.FS, so nothing is ever fetched.
const baseURL = "https://schema.codexrec.invalid/"

// route is what a kind of message is checked against: a compiled schema for the
// whole message and the starting points of the undeclared-field walk.
type route struct {
	fast *fnode // the fast check's schema (fast.go)
	walk []node // top-level schema nodes, walked against the whole message
	top  *expansion
	err  error // building the route failed; reported once per message as invalid

	// doc and loc are the route's schema document for the compiler. schema and
	// compileErr are set under Set.mu by compiled, at build time for a --schema-dir set
	// and on the first message the fast check does not pass for an embedded one.
	doc        map[string]any
	loc        string
	schema     *jsonschema.Schema
	compileErr error
	compiled   bool
}

// document is one parsed schema file.
type document struct {
	path string
	root any
	// tagged says the document is a schema file, whose tagged unions the compiler and
	// the fast check read rewritten (tagged.go); a route's own document is read as it
	// is.
	tagged bool
	// compiled is what the compiler gets: root with tagged unions rewritten, made on
	// the compiler's first use (the fast check takes each union's rewriting as it
	// reaches it, so a clean session never copies a whole file).
	compiled     any
	compiledOnce sync.Once
	refs         sync.Map // "#/definitions/X" to the node it points at
	// objExp and arrExp cache walk expansions by schema node, for objects and arrays;
	// dependent marks the nodes whose expansion depends on the value (raw.go).
	objExp, arrExp, dependent sync.Map
	// byObjs keeps the expansions of values whose expansion depends on them, by the
	// object schemas they expanded to (raw.go's sharedExpansion).
	byObjsMu sync.RWMutex
	byObjs   map[string]*expansion
	// byShape keeps them by the node and the object's shape, and shapes the shape of
	// the objects under each such node (rawshape.go).
	byShape map[string]*expansion
	shapes  sync.Map
	// infos caches what expand and matches read from each schema node (walkinfo.go).
	infos sync.Map
}

type compiler struct {
	c    *jsonschema.Compiler
	docs map[string]*document // by mode-prefixed path, "stable/ClientRequest.json"
}

// loader serves "<baseURL><mode>/<path>" from the set's file systems.
type loader struct{ s *Set }

func (l loader) Load(url string) (any, error) {
	rest, ok := strings.CutPrefix(url, baseURL)
	if !ok {
		return nil, fmt.Errorf("schema: refusing to load %s: only the set's own files are used", url)
	}
	d, err := l.s.doc(rest)
	if err != nil {
		return nil, err
	}
	return d.compiledDoc(), nil
}

// compiledDoc is root with its tagged unions rewritten (the document itself when
// not tagged), made once.
func (d *document) compiledDoc() any {
	d.compiledOnce.Do(func() {
		d.compiled = d.root
		if d.tagged {
			d.compiled = taggedCopy(d.root)
		}
	})
	return d.compiled
}

// doc parses (once) and returns "<mode>/<path>". s.mu must be held.
func (s *Set) doc(key string) (*document, error) {
	if d, ok := s.comp.docs[key]; ok {
		return d, nil
	}
	mode, p, _ := strings.Cut(key, "/")
	i := 0
	if mode == Experimental {
		i = 1
	} else if mode != Stable {
		return nil, fmt.Errorf("schema: no set %q", mode)
	}
	b, err := readShared(s.fsys[i], p)
	if err != nil {
		return nil, fmt.Errorf("schema: %s set: %w", mode, err)
	}
	// The files are large (ClientRequest.json is 340 KB) and parsed on the first
	// message of a session: decode is several times faster than encoding/json and
	// gives the same values (json.Number for numbers), once the bytes are known JSON.
	if !s.embedded && !gjson.ValidBytes(b) {
		return nil, fmt.Errorf("schema: %s set: %s: not valid JSON", mode, p)
	}
	root, err := decode(b)
	if err != nil {
		return nil, fmt.Errorf("schema: %s set: %s: %w", mode, p, err)
	}
	d := &document{path: key, root: root, tagged: true}
	s.comp.docs[key] = d
	return d, nil
}

func (s *Set) compilerLocked() *compiler {
	if s.comp == nil {
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft7)
		c.UseLoader(loader{s})
		c.AssertFormat()
		for _, f := range formats {
			c.RegisterFormat(f)
		}
		s.comp = &compiler{c: c, docs: map[string]*document{}}
	}
	return s.comp
}

// routeFor returns (compiling on first use) the route of a request or notification
// (m set), a response (result set) or an error response (both empty).
func (s *Set) routeFor(mode int, kind wire.Kind, m *Method) *route {
	var slot *atomic.Pointer[route]
	switch {
	case m == nil:
		slot = &s.errRoutes[mode]
	case kind == wire.KindResponse:
		slot = &s.routes[m.idx][mode][1]
	default:
		slot = &s.routes[m.idx][mode][0]
	}
	if r := slot.Load(); r != nil {
		return r
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := slot.Load(); r != nil {
		return r
	}
	r := s.buildRoute(mode, kind, m)
	slot.Store(r)
	return r
}

func (s *Set) buildRoute(mode int, kind wire.Kind, m *Method) *route {
	s.compilerLocked()
	prefix := modeName(mode) + "/"
	r := &route{}
	var doc map[string]any
	var envelope string
	switch kind {
	case wire.KindRequest, wire.KindNotification:
		union, err := s.doc(prefix + m.union)
		if err != nil {
			return &route{err: err}
		}
		i := m.branch[mode]
		branchPtr := "/oneOf/" + strconv.Itoa(i)
		branch, _ := ptrGet(union.root, branchPtr).(map[string]any)
		r.walk = append(r.walk, node{doc: union, s: branch})
		unionProps, _ := ptrGet(union.root, "/properties").(map[string]any)
		if unionProps != nil {
			// Members declared beside the oneOf (emittedAtMs on every server notification).
			r.walk = append(r.walk, node{doc: union, s: map[string]any{"properties": unionProps}})
		}
		doc = flatBranch(baseURL+prefix+m.union, branchPtr, branch, unionProps)
		envelope = "JSONRPCRequest.json"
		if kind == wire.KindNotification {
			envelope = "JSONRPCNotification.json"
		}
	case wire.KindResponse:
		p := s.index[mode][m.Result]
		res, err := s.doc(prefix + p)
		if err != nil {
			return &route{err: err}
		}
		doc = map[string]any{"required": []any{"result"},
			"properties": map[string]any{"result": map[string]any{"$ref": baseURL + prefix + p}}}
		r.walk = append(r.walk, node{props: map[string][]node{"result": {{doc: res, s: res.root}}}})
		envelope = "JSONRPCResponse.json"
	case wire.KindError:
		envelope = "JSONRPCError.json"
		doc = map[string]any{"$ref": baseURL + prefix + envelope}
	}
	env, err := s.doc(prefix + envelope)
	if err != nil {
		return &route{err: err}
	}
	r.walk = append(r.walk, node{doc: env, s: env.root, envelope: true})
	r.top = topExpansion(r.walk)
	r.doc, r.loc = doc, baseURL+"route/"+routeName(mode, kind, m)+".json"
	if s.fb == nil {
		s.fb = newFbuilder(s)
	}
	r.fast = s.fb.node(&document{path: r.loc, root: doc}, doc)
	if !s.embedded {
		// A user's schemas may not be valid schemas, which only the compiler tells:
		// compile now, so every message reports it, as before.
		if _, err := s.compileLocked(r); err != nil {
			return &route{err: err}
		}
	}
	return r
}

// compiledRoute returns the route's schema compiled by jsonschema (compiling it on
// first use).
func (s *Set) compiledRoute(r *route) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.compileLocked(r)
}

func (s *Set) compileLocked(r *route) (*jsonschema.Schema, error) {
	if r.compiled {
		return r.schema, r.compileErr
	}
	r.compiled = true
	comp := s.compilerLocked()
	if err := comp.c.AddResource(r.loc, r.doc); err != nil {
		r.compileErr = err
		return nil, err
	}
	sch, err := comp.c.Compile(r.loc)
	if err != nil {
		r.compileErr = fmt.Errorf("compiling the schema: %w", err)
		return nil, r.compileErr
	}
	r.schema = sch
	return sch, nil
}

// flatBranch is the schema of one union branch plus the union's own members, as one
// object schema whose members refer into the union file: validating it is the same as
// validating the branch and the union's properties, with fewer levels to walk through.
// Branches with keywords it does not know are wrapped in allOf instead.
func flatBranch(unionURL, branchPtr string, branch, unionProps map[string]any) map[string]any {
	props := map[string]any{}
	out := map[string]any{"type": "object", "properties": props}
	for k, v := range branch {
		switch k {
		case "title", "description", "type":
		case "required":
			out["required"] = v
		case "properties":
			bp, _ := v.(map[string]any)
			for name := range bp {
				props[name] = map[string]any{"$ref": unionURL + "#" + branchPtr + "/properties/" + jsonx.EscapeToken(name)}
			}
		default:
			return wrapBranch(unionURL, branchPtr, unionProps)
		}
	}
	for name := range unionProps {
		if _, dup := props[name]; dup {
			return wrapBranch(unionURL, branchPtr, unionProps)
		}
		props[name] = map[string]any{"$ref": unionURL + "#/properties/" + jsonx.EscapeToken(name)}
	}
	return out
}

func wrapBranch(unionURL, branchPtr string, unionProps map[string]any) map[string]any {
	all := []any{map[string]any{"$ref": unionURL + "#" + branchPtr}}
	if len(unionProps) > 0 {
		refs := map[string]any{}
		for name := range unionProps {
			refs[name] = map[string]any{"$ref": unionURL + "#/properties/" + jsonx.EscapeToken(name)}
		}
		all = append(all, map[string]any{"properties": refs})
	}
	return map[string]any{"allOf": all}
}

// routeName names a route in the cache and in the compiler's URL space.
func routeName(mode int, kind wire.Kind, m *Method) string {
	k := modeName(mode) + "/" + kind.String()
	if m != nil {
		k += "/" + m.From.String() + "/" + url.PathEscape(m.Name)
	}
	return k
}

// ptrGet follows a JSON pointer ("/definitions/X") in a parsed document.
func ptrGet(root any, ptr string) any { return ptrGetView(root, ptr, nil) }

// ptrGetView is ptrGet reading each object on the way through view (nil: as it is).
func ptrGetView(root any, ptr string, view func(map[string]any) map[string]any) any {
	if ptr == "" {
		return root
	}
	cur := root
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = jsonx.UnescapeToken(tok)
		switch c := cur.(type) {
		case map[string]any:
			if view != nil {
				c = view(c)
			}
			cur = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
		if cur == nil {
			return nil
		}
	}
	return cur
}
