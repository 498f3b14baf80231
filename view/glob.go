package view

import (
	"strings"
	"unicode/utf8"
)

// MatchMethod reports whether method matches glob, where '*' matches any run of
// characters including '/' (so "item/*" matches "item/agentMessage/delta") and '?'
// matches one character. A glob without wildcards must match exactly.
func MatchMethod(glob, method string) bool {
	for len(glob) > 0 {
		switch glob[0] {
		case '*':
			for len(glob) > 0 && glob[0] == '*' {
				glob = glob[1:]
			}
			if glob == "" {
				return true
			}
			for i := 0; i <= len(method); i++ {
				if MatchMethod(glob, method[i:]) {
					return true
				}
			}
			return false
		case '?':
			if method == "" {
				return false
			}
			_, n := utf8.DecodeRuneInString(method)
			glob, method = glob[1:], method[n:]
		default:
			i := strings.IndexAny(glob, "*?")
			if i < 0 {
				i = len(glob)
			}
			if !strings.HasPrefix(method, glob[:i]) {
				return false
			}
			glob, method = glob[i:], method[i:]
		}
	}
	return method == ""
}
