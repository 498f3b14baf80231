package normalize

import (
	"fmt"
	"strings"

	"github.com/codexrec/codexrec/internal/jsonx"
)

// pattern is a parsed JSON pointer with wildcards: "*" matches one segment, "**" any
// number of segments (including none).
type pattern []string

func parsePattern(p string) (pattern, error) {
	if p == "" || p[0] != '/' {
		return nil, fmt.Errorf("ignore pattern %q: a JSON pointer starts with '/' (e.g. /params/item/durationMs)", p)
	}
	segs := strings.Split(p[1:], "/")
	for i, s := range segs {
		for j := 0; j < len(s); j++ {
			if s[j] == '~' && (j+1 == len(s) || (s[j+1] != '0' && s[j+1] != '1')) {
				return nil, fmt.Errorf("ignore pattern %q: segment %q: '~' must be followed by 0 or 1", p, s)
			}
		}
		segs[i] = jsonx.UnescapeToken(s)
	}
	return pattern(segs), nil
}

// match reports whether path (unescaped segments) matches the pattern.
func (p pattern) match(path []string) bool {
	if len(p) == 0 {
		return len(path) == 0
	}
	if p[0] == "**" {
		for i := 0; i <= len(path); i++ {
			if p[1:].match(path[i:]) {
				return true
			}
		}
		return false
	}
	if len(path) == 0 {
		return false
	}
	if p[0] != "*" && p[0] != path[0] {
		return false
	}
	return p[1:].match(path[1:])
}
