package jsonx

import (
	"fmt"
	"strings"
)

// Glob is a JSON pointer (RFC 6901) with wildcards: a "*" segment matches any one
// member name or array index, a "**" segment any number of segments (none too).
// Segments are kept unescaped.
type Glob []string

// ParseGlob parses a JSON pointer pattern such as "/params/input/*/text".
func ParseGlob(p string) (Glob, error) {
	if p == "" || p[0] != '/' {
		return nil, fmt.Errorf("pattern %q: a JSON pointer starts with '/' (e.g. /params/item/durationMs)", p)
	}
	segs := strings.Split(p[1:], "/")
	for i, s := range segs {
		for j := 0; j < len(s); j++ {
			if s[j] == '~' && (j+1 == len(s) || (s[j+1] != '0' && s[j+1] != '1')) {
				return nil, fmt.Errorf("pattern %q: segment %q: '~' must be followed by 0 or 1", p, s)
			}
		}
		segs[i] = UnescapeToken(s)
	}
	return Glob(segs), nil
}

// Match reports whether path (unescaped segments) matches the pattern.
func (g Glob) Match(path []string) bool {
	if len(g) == 0 {
		return len(path) == 0
	}
	if g[0] == "**" {
		for i := 0; i <= len(path); i++ {
			if g[1:].Match(path[i:]) {
				return true
			}
		}
		return false
	}
	if len(path) == 0 {
		return false
	}
	if g[0] != "*" && g[0] != path[0] {
		return false
	}
	return g[1:].Match(path[1:])
}

// Prefix reports whether path could be the start of a path the pattern matches: the
// members on the way to what a pattern names.
func (g Glob) Prefix(path []string) bool {
	if len(path) == 0 {
		return true
	}
	if len(g) == 0 {
		return false
	}
	if g[0] == "**" {
		return true
	}
	if g[0] != "*" && g[0] != path[0] {
		return false
	}
	return g[1:].Prefix(path[1:])
}

// String renders the pattern as it is written.
func (g Glob) String() string { return Pointer(g...) }
