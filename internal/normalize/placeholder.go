package normalize

import (
	"regexp"
	"strings"
	"sync"
)

// A sanitized recording carries placeholders where the recorded client sent a path
// or a secret (<cwd>, <codex-home>, <redacted:openai-key:3f9a1c>); a live client sends
// the real value. EqualFilled lets a placeholder stand for any text (replay's params
// matching); PlaceholderValues reads what the live text put in its place.
var placeholderRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<[A-Za-z][A-Za-z0-9_-]{2,}(?::[^<>\s"]*)?>`) })

var placeholderPatterns sync.Map // string -> *regexp.Regexp (nil when none)

// placeholderPattern compiles a recorded string holding placeholders into a regexp
// with one group per placeholder; nil when it holds none.
func placeholderPattern(s string) *regexp.Regexp {
	if !strings.Contains(s, "<") {
		return nil
	}
	if re, ok := placeholderPatterns.Load(s); ok {
		return re.(*regexp.Regexp)
	}
	var re *regexp.Regexp
	if locs := placeholderRE().FindAllStringIndex(s, -1); len(locs) > 0 {
		var b strings.Builder
		b.WriteString(`^`)
		last := 0
		for _, l := range locs {
			b.WriteString(regexp.QuoteMeta(s[last:l[0]]))
			b.WriteString(`(.+?)`)
			last = l[1]
		}
		b.WriteString(regexp.QuoteMeta(s[last:]))
		b.WriteString(`$`)
		re = regexp.MustCompile(b.String())
	}
	placeholderPatterns.Store(s, re)
	return re
}

// EqualFilled is Equal where a string of recorded holding placeholders matches any
// string of live that fills them in: "<cwd>/a.txt" matches "/tmp/x/a.txt".
func EqualFilled(recorded, live any) bool { return equal(recorded, live, true) }

// PlaceholderValues returns what the live string puts in place of each placeholder
// of the recorded one: "<cwd>/a.txt" and "/tmp/x/a.txt" give <cwd> = /tmp/x; nil when
// recorded holds none or live does not fill them in.
func PlaceholderValues(recorded, live string) map[string]string {
	re := placeholderPattern(recorded)
	if re == nil {
		return nil
	}
	m := re.FindStringSubmatch(live)
	if m == nil {
		return nil
	}
	out := map[string]string{}
	for i, p := range placeholderRE().FindAllString(recorded, -1) {
		out[p] = m[i+1]
	}
	return out
}
