package replay

import (
	"regexp"
	"strings"
	"sync"

	"codexrec/internal/normalize"
)

// A sanitized recording carries placeholders where the recorded client sent a path
// or a secret (<cwd>, <codex-home>, <redacted:openai-key:3f9a1c>); the live client
// sends the real value. In params mode a placeholder stands for any text.
var placeholderRE = regexp.MustCompile(`<[A-Za-z][A-Za-z0-9_-]{2,}(?::[^<>\s"]*)?>`)

// placeholderPattern compiles a recorded string holding placeholders into a regexp
// with one group per placeholder; nil when it holds none.
var placeholderPatterns sync.Map // string -> *regexp.Regexp (nil when none)

func placeholderPattern(s string) *regexp.Regexp {
	if !strings.Contains(s, "<") {
		return nil
	}
	if re, ok := placeholderPatterns.Load(s); ok {
		return re.(*regexp.Regexp)
	}
	var re *regexp.Regexp
	if locs := placeholderRE.FindAllStringIndex(s, -1); len(locs) > 0 {
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

// placeholderEqual is normalize.Equal where a recorded string holding placeholders
// matches any live string that fills them in.
func placeholderEqual(want, got any) bool {
	switch w := want.(type) {
	case string:
		if g, ok := got.(string); ok {
			if w == g {
				return true
			}
			if re := placeholderPattern(w); re != nil {
				return re.MatchString(g)
			}
		}
		return false
	case normalize.Masked:
		return normalize.Equal(want, got)
	case normalize.JSONText:
		g, ok := got.(normalize.JSONText)
		return ok && placeholderEqual(w.Value, g.Value)
	case normalize.Object:
		g, ok := got.(normalize.Object)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if w[i].Key != g[i].Key || !placeholderEqual(w[i].Value, g[i].Value) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !placeholderEqual(w[i], g[i]) {
				return false
			}
		}
		return true
	}
	return normalize.Equal(want, got)
}

// placeholderValues returns what the live string puts in place of each placeholder
// of the recorded one: "<cwd>/a.txt" and "/tmp/x/a.txt" give <cwd> = /tmp/x.
func placeholderValues(recorded, live string) map[string]string {
	re := placeholderPattern(recorded)
	if re == nil {
		return nil
	}
	m := re.FindStringSubmatch(live)
	if m == nil {
		return nil
	}
	out := map[string]string{}
	for i, p := range placeholderRE.FindAllString(recorded, -1) {
		out[p] = m[i+1]
	}
	return out
}
