package schema

import (
	"reflect"
	"sync"
)

// nodeInfo is what the undeclared-field walk reads from one schema node, looked up
// once per node instead of a dozen map lookups on every value that passes it.
type nodeInfo struct {
	hasRef   bool
	ref      string
	allOf    []any
	alts     [][]any // anyOf, then oneOf
	declares bool    // properties, additionalProperties, patternProperties or items
	open     bool    // constrains nothing about members (true, {}, a bare "object")

	altOnce sync.Once
	altM    *altMatch // the node as an alternative of an anyOf/oneOf (match.go)
}

func (d *document) info(m map[string]any) *nodeInfo {
	key := reflect.ValueOf(m).UnsafePointer()
	if in, ok := d.infos.Load(key); ok {
		return in.(*nodeInfo)
	}
	in := &nodeInfo{}
	in.ref, in.hasRef = m["$ref"].(string)
	in.allOf, _ = m["allOf"].([]any)
	for _, kw := range [...]string{"anyOf", "oneOf"} {
		if alts, ok := m[kw].([]any); ok {
			in.alts = append(in.alts, alts)
		}
	}
	_, hasProps := m["properties"]
	_, hasAdd := m["additionalProperties"]
	_, hasPat := m["patternProperties"]
	_, hasItems := m["items"]
	in.declares = hasProps || hasAdd || hasPat || hasItems
	in.open = isTrivial(m) || m["type"] == "object" && !hasComb(m)
	actual, _ := d.infos.LoadOrStore(key, in)
	return actual.(*nodeInfo)
}

func (in *nodeInfo) alt(doc *document, m map[string]any) *altMatch {
	in.altOnce.Do(func() { in.altM = newAltMatch(doc, m) })
	return in.altM
}
