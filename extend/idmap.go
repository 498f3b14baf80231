package extend

import (
	"encoding/json"
	"sort"
	"strings"
)

// Map pairs the ids a client holds from a replay (thread, turn and item ids the
// recording served) with the ids a live server gave the same things, and rewrites
// lines in either direction. It learns pairs by walking a replayed message and the
// live message that corresponds to it: a string under a key named "id" or ending
// in "Id" (or each string of an array under a key ending in "Ids") that differs is
// a pair. Ids shorter than MinIDLen are never mapped (a "1" could be anything). The
// zero value is an empty map; it is not safe for concurrent use.
type Map struct {
	toLive, toClient map[string]string
	// Conflicts counts pairs refused because one side was paired already with
	// something else (the two sessions diverged there).
	Conflicts int

	fwd, back *rewriter
}

// MinIDLen is the shortest id Map maps.
const MinIDLen = 8

// Len is the number of pairs.
func (m *Map) Len() int { return len(m.toLive) }

// Live is the live id paired with the client's id, if any.
func (m *Map) Live(client string) (string, bool) {
	v, ok := m.toLive[client]
	return v, ok
}

// Add pairs the client's id with the live one. It reports whether the pair is new;
// an id already paired with another is a conflict, refused.
func (m *Map) Add(client, live string) bool {
	if client == live || len(client) < MinIDLen || len(live) < MinIDLen || !plainID(client) || !plainID(live) {
		return false
	}
	if m.toLive == nil {
		m.toLive, m.toClient = map[string]string{}, map[string]string{}
	}
	l, ok1 := m.toLive[client]
	c, ok2 := m.toClient[live]
	if ok1 || ok2 {
		if l != live || c != client {
			m.Conflicts++
		}
		return false
	}
	m.toLive[client], m.toClient[live] = live, client
	m.fwd, m.back = nil, nil
	return true
}

// plainID reports whether s can be found in JSON text as it is: printable ASCII
// without a quote or a backslash (every id the app-server hands out is).
func plainID(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// Learn walks a replayed message and the live message that corresponds to it (the
// answer to the same request, the Nth notification of the same method) and adds
// the id pairs it finds. Only params, result and error are walked: the JSON-RPC id
// is the caller's to pair. It returns how many pairs were new.
func (m *Map) Learn(replayed, live []byte) int {
	var r, l map[string]any
	if json.Unmarshal(replayed, &r) != nil || json.Unmarshal(live, &l) != nil {
		return 0
	}
	n := 0
	for _, k := range []string{"params", "result", "error"} {
		if rv, ok := r[k]; ok {
			if lv, ok := l[k]; ok {
				n += m.walk(rv, lv, false)
			}
		}
	}
	return n
}

func (m *Map) walk(r, l any, isID bool) int {
	n := 0
	switch r := r.(type) {
	case map[string]any:
		l, ok := l.(map[string]any)
		if !ok {
			return 0
		}
		for k, rv := range r {
			if lv, ok := l[k]; ok {
				n += m.walk(rv, lv, idKey(k))
			}
		}
	case []any:
		l, ok := l.([]any)
		if !ok {
			return 0
		}
		for i := range min(len(r), len(l)) {
			n += m.walk(r[i], l[i], isID)
		}
	case string:
		if l, ok := l.(string); ok && isID && m.Add(r, l) {
			n++
		}
	}
	return n
}

// idKey reports whether a member named k holds an id (or ids).
func idKey(k string) bool {
	return k == "id" || strings.HasSuffix(k, "Id") || strings.HasSuffix(k, "Ids")
}

// ToLive rewrites a client's line for the live server: every id the client holds
// that is paired becomes the live one.
func (m *Map) ToLive(line []byte) []byte {
	if len(m.toLive) == 0 {
		return line
	}
	if m.fwd == nil {
		m.fwd = newRewriter(m.toLive)
	}
	return m.fwd.rewrite(line)
}

// ToClient rewrites a live server's line for the client: every paired live id
// becomes the one the client holds.
func (m *Map) ToClient(line []byte) []byte {
	if len(m.toClient) == 0 {
		return line
	}
	if m.back == nil {
		m.back = newRewriter(m.toClient)
	}
	return m.back.rewrite(line)
}

// rewriter replaces whole ids in one pass: an occurrence counts only where no
// letter or digit touches it on either side, so an id inside a path
// ("rollout-...-<id>.jsonl") is replaced and a longer id that contains it is not.
type rewriter struct {
	from  map[byte][]string // by first byte, longest first
	to    map[string]string
	first [256]bool
}

func newRewriter(pairs map[string]string) *rewriter {
	rw := &rewriter{from: map[byte][]string{}, to: pairs}
	for k := range pairs {
		rw.from[k[0]] = append(rw.from[k[0]], k)
		rw.first[k[0]] = true
	}
	for _, ks := range rw.from {
		sort.Slice(ks, func(i, j int) bool { return len(ks[i]) > len(ks[j]) || len(ks[i]) == len(ks[j]) && ks[i] < ks[j] })
	}
	return rw
}

func alnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func (rw *rewriter) rewrite(line []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(line); i++ {
		c := line[i]
		if !rw.first[c] || i > 0 && alnum(line[i-1]) && alnum(c) {
			continue
		}
		for _, k := range rw.from[c] {
			end := i + len(k)
			if end > len(line) || string(line[i:end]) != k || end < len(line) && alnum(line[end]) && alnum(k[len(k)-1]) {
				continue
			}
			if out == nil {
				out = make([]byte, 0, len(line)+16)
			}
			out = append(out, line[last:i]...)
			out = append(out, rw.to[k]...)
			last = end
			i = end - 1
			break
		}
	}
	if out == nil {
		return line
	}
	return append(out, line[last:]...)
}
