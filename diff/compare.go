package diff

import (
	"github.com/codexrec/codexrec/internal/jsonx"
	"strings"

	"github.com/codexrec/codexrec/internal/normalize"
)

// ChangeKind names what kind of difference a Change is.
type ChangeKind string

const (
	Added           ChangeKind = "added"              // a member or element only NEW has
	Removed         ChangeKind = "removed"            // a member or element only OLD has
	TypeChanged     ChangeKind = "type-changed"       // the JSON type differs (null counts as a type)
	ValueChanged    ChangeKind = "value-changed"      // same type, different value
	EnumAdded       ChangeKind = "enum-value-added"   // a value of an enum-like member seen only in NEW
	EnumRemoved     ChangeKind = "enum-value-removed" // a value of an enum-like member seen only in OLD
	ItemTypeAdded   ChangeKind = "item-type-added"    // an item type (item.type) seen only in NEW
	ItemTypeRemoved ChangeKind = "item-type-removed"  // an item type seen only in OLD
	MessageAdded    ChangeKind = "message-added"      // a message NEW has and alignment left unmatched
	MessageRemoved  ChangeKind = "message-removed"    // a message OLD has and alignment left unmatched
	MessageMoved    ChangeKind = "message-moved"      // an equal message at another place in the sequence
)

// fieldChange is one difference inside an aligned pair of messages.
type fieldChange struct {
	kind     ChangeKind
	pointer  string // with array indices generalised to "*"
	old, new any
}

// compareValues appends to out the differences between two normalised values at ptr.
func compareValues(out []fieldChange, ptr string, a, b any) []fieldChange {
	path := []byte(ptr)
	return compareAt(out, &path, a, b)
}

// compareAt appends to out the differences between two normalised values at
// the pointer in path (a scratch buffer, restored on return). A string holding JSON
// (normalize.JSONText) is compared as JSON; its members' pointers continue after a
// '#': /params/item/arguments#/cmd. Array indices are generalised to "*".
//
// Members and elements are compared by descending into them, never by asking
// normalize.Equal first: that would visit each subtree once per level above it,
// quadratic in the depth. Recursion is bounded by normalize.MaxDepth.
func compareAt(out []fieldChange, path *[]byte, a, b any) []fieldChange {
	ta, tb := normalize.TypeOf(a), normalize.TypeOf(b)
	if ta != tb {
		return append(out, fieldChange{TypeChanged, string(*path), a, b})
	}
	n := len(*path)
	defer func() { *path = (*path)[:n] }()
	switch a := a.(type) {
	case normalize.Object:
		bo, ok := b.(normalize.Object)
		if !ok {
			break
		}
		i, j := 0, 0
		for i < len(a) || j < len(bo) {
			*path = (*path)[:n]
			switch {
			case j >= len(bo) || i < len(a) && a[i].Key < bo[j].Key:
				out = append(out, fieldChange{Removed, string(appendMember(*path, a[i].Key)), a[i].Value, nil})
				i++
			case i >= len(a) || bo[j].Key < a[i].Key:
				out = append(out, fieldChange{Added, string(appendMember(*path, bo[j].Key)), nil, bo[j].Value})
				j++
			default:
				*path = appendMember(*path, a[i].Key)
				out = compareAt(out, path, a[i].Value, bo[j].Value)
				i, j = i+1, j+1
			}
		}
		return out
	case []any:
		bs, ok := b.([]any)
		if !ok {
			break
		}
		*path = append(*path, "/*"...)
		for i := 0; i < len(a) || i < len(bs); i++ {
			switch {
			case i >= len(bs):
				out = append(out, fieldChange{Removed, string(*path), a[i], nil})
			case i >= len(a):
				out = append(out, fieldChange{Added, string(*path), nil, bs[i]})
			default:
				out = compareAt(out, path, a[i], bs[i])
			}
		}
		return out
	case normalize.JSONText:
		if bj, ok := b.(normalize.JSONText); ok {
			*path = append(*path, '#')
			return compareAt(out, path, a.Value, bj.Value)
		}
	}
	if !normalize.Equal(a, b) {
		out = append(out, fieldChange{ValueChanged, string(*path), a, b})
	}
	return out
}

func appendMember(path []byte, key string) []byte {
	path = append(path, '/')
	return append(path, jsonx.EscapeToken(key)...)
}

// enumKeys are member names whose string values are treated as enum values.
var enumKeys = map[string]bool{
	"type": true, "status": true, "kind": true, "role": true, "phase": true, "source": true,
	"decision": true, "mode": true, "state": true, "reason": true,
}

// enumSuffixes extend enumKeys to camel-case names such as approvalPolicy, sandboxMode.
var enumSuffixes = []string{"Type", "Status", "Kind", "Mode", "Policy", "Effort", "Source", "Role", "Phase", "State", "Reason"}

func isEnumKey(key string) bool {
	if enumKeys[key] {
		return true
	}
	for _, s := range enumSuffixes {
		if len(key) > len(s) && strings.HasSuffix(key, s) {
			return true
		}
	}
	return false
}

// enumLike reports whether s looks like an enum value (an identifier, not prose).
func enumLike(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == ':' || c == '/') {
			return false
		}
	}
	return true
}

// collectEnums calls f for every enum-like string value in v, with its generalised
// pointer (path is a scratch buffer holding v's pointer, restored on return).
func collectEnums(path *[]byte, v any, f func(ptr, value string)) {
	n := len(*path)
	defer func() { *path = (*path)[:n] }()
	switch v := v.(type) {
	case normalize.Object:
		for _, m := range v {
			*path = (*path)[:n]
			if s, ok := m.Value.(string); ok {
				if isEnumKey(m.Key) && enumLike(s) {
					f(string(appendMember(*path, m.Key)), s)
				}
				continue
			}
			switch m.Value.(type) {
			case normalize.Object, []any, normalize.JSONText:
				*path = appendMember(*path, m.Key)
				collectEnums(path, m.Value, f)
			}
		}
	case []any:
		*path = append(*path, "/*"...)
		for _, e := range v {
			collectEnums(path, e, f)
		}
	case normalize.JSONText:
		*path = append(*path, '#')
		collectEnums(path, v.Value, f)
	}
}

// isItemType reports whether an enum pointer is a thread item's type.
func isItemType(ptr string) bool {
	return strings.HasSuffix(ptr, "/item/type") || strings.HasSuffix(ptr, "/items/*/type")
}

// render is a value as shown in reports: compact normalised JSON, shortened to max
// bytes (keeping UTF-8 intact) with "…" marking the cut. Only the start of a long
// value is rendered.
func render(v any, max int) string { return shorten(string(normalize.MarshalPrefix(v, max+1)), max) }
