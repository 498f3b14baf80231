package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/wire"
)

// Direction bits: who sends values of a type, as the client sees it.
type usage uint8

const (
	usedByClient usage = 1 << iota // the client sends it: request params, answers to server requests
	usedByServer                   // the server sends it: results, notifications, server requests
)

func (u usage) String() string {
	switch u {
	case usedByClient:
		return "client"
	case usedByServer:
		return "server"
	case usedByClient | usedByServer:
		return "both"
	}
	return "unused"
}

// SchemaMethod is one method of a protocol version.
type SchemaMethod struct {
	Sender string // "client" or "server"
	Kind   string // "request" or "notification"
	Name   string
	Params string // params type name, "" for none
	Result string // result type name of a request, "" when unknown
}

func (m SchemaMethod) key() string { return m.Sender + " " + m.Kind + " " + m.Name }

// senders says who sends the method's params and who its result: the method's sender
// the params, the other side the result.
func (m SchemaMethod) senders() (params, result usage) {
	if m.Sender == "server" {
		return usedByServer, usedByClient
	}
	return usedByClient, usedByServer
}

// SchemaSet is one version's protocol prepared for diffing: the method table and
// every named type, canonicalised.
type SchemaSet struct {
	Name    string
	Methods map[string]SchemaMethod // by Sender, Kind and Name
	types   map[string]*node
	usage   map[string]usage // reachable types and who sends them
}

// bundles are files that repeat every definition in one document.
func isBundle(name string) bool { return strings.HasPrefix(name, "codex_app_server_protocol") }

// LoadSchemaSet prepares a schema set for diffing: the stable set, or the
// experimental one (which declares more methods). name labels it in reports.
func LoadSchemaSet(s *schema.Set, experimental bool, name string) (*SchemaSet, error) {
	ss := &SchemaSet{Name: name, Methods: map[string]SchemaMethod{}, types: map[string]*node{}, usage: map[string]usage{}}
	if err := ss.readTypes(s.FS(experimental)); err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	for _, m := range s.Methods() {
		if m.Experimental && !experimental {
			continue
		}
		sm := SchemaMethod{Kind: m.Kind.String(), Name: m.Name, Params: m.Params, Result: m.Result}
		sm.Sender = "client"
		if m.From == wire.ServerToClient {
			sm.Sender = "server"
		}
		if _, ok := ss.types[sm.Result]; !ok {
			sm.Result = "" // declared only in the other set
		}
		ss.Methods[sm.key()] = sm
	}
	ss.markUsage()
	return ss, nil
}

// readTypes collects every named type: each file's definitions and each file's root
// schema under the file's name. Every definition of a name is the same Rust type, so
// the first one read (in lexical path order) stands for all.
func (ss *SchemaSet) readTypes(fsys fs.FS) error {
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(path.Base(p), ".json")
		if d.IsDir() || !strings.HasSuffix(p, ".json") || isBundle(name) {
			return nil
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var doc map[string]any
		if err := dec.Decode(&doc); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		defs, _ := doc["definitions"].(map[string]any)
		for _, dn := range slices.Sorted(maps.Keys(defs)) {
			if _, dup := ss.types[dn]; !dup {
				ss.types[dn] = parseNode(defs[dn])
			}
		}
		if _, dup := ss.types[name]; !dup {
			ss.types[name] = parseNode(doc)
		}
		return nil
	})
}

// markUsage walks from each method's params and result through references and marks
// who sends each reachable type.
func (ss *SchemaSet) markUsage() {
	for _, m := range ss.Methods {
		params, result := m.senders()
		ss.mark(m.Params, params)
		ss.mark(m.Result, result)
	}
	// Types no method table entry reaches (a result whose name does not follow the
	// Params/Response pattern) are judged by their names.
	for _, name := range slices.Sorted(maps.Keys(ss.types)) {
		if ss.usage[name] != 0 {
			continue
		}
		switch {
		case strings.HasSuffix(name, "Params"):
			ss.mark(name, usedByClient)
		case strings.HasSuffix(name, "Response"), strings.HasSuffix(name, "Notification"):
			ss.mark(name, usedByServer)
		}
	}
}

func (ss *SchemaSet) mark(name string, u usage) {
	if name == "" || ss.usage[name]&u != 0 {
		return
	}
	n, ok := ss.types[name]
	if !ok {
		return
	}
	ss.usage[name] |= u
	n.refs(func(ref string) { ss.mark(ref, u) })
}

// refs calls f with every type name n refers to.
func (n *node) refs(f func(string)) {
	if n.ref != "" {
		f(n.ref)
	}
	for _, p := range n.props {
		p.refs(f)
	}
	for _, v := range n.variants {
		v.refs(f)
	}
	if n.items != nil {
		n.items.refs(f)
	}
	if n.addl != nil {
		n.addl.refs(f)
	}
}

// Types is the number of named types in the set.
func (ss *SchemaSet) Types() int { return len(ss.types) }
