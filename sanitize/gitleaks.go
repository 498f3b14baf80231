package sanitize

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// glRuleData is one of gitleaks' rules as gitleaksgen wrote it (gitleaks_rules.go).
type glRuleData struct {
	id, regex   string
	keywords    []string // lower case
	secretGroup int
	entropy     float64
	// prefixes, when set, are the literals every match starts with (each one of the
	// keywords): a keyword occurrence not spelled as one (prefixFold: ASCII
	// case-insensitively) or, with word, not at a word start, cannot begin a match.
	prefixes   []string
	prefixFold bool
	word       bool
	allow      []glAllowData
}

type glAllowData struct {
	target    string // what regexes match: "secret", "match" or "line"
	regexes   []string
	stopwords []string
}

// glRule is a gitleaks rule; its expressions are compiled the first time a line
// gets past its keywords (compiled), so that a run finding none compiles none.
type glRule struct {
	*glRuleData
	once sync.Once
	re   *regexp.Regexp
	// anchored is re matching only at the start of its input, for rules whose
	// matches start with one of their prefixes: each occurrence is tried once, where
	// the prefilter found it, not at every position after it.
	anchored *regexp.Regexp
	allow    []glAllow
}

// compiled compiles the rule's expressions once and returns it.
func (r *glRule) compiled() *glRule {
	r.once.Do(func() {
		r.re = regexp.MustCompile(r.regex)
		if len(r.prefixes) > 0 {
			r.anchored = regexp.MustCompile(`^(?:` + r.regex + `)`)
		}
		for _, a := range r.glRuleData.allow {
			r.allow = append(r.allow, compileAllow(a))
		}
	})
	return r
}

type glAllow struct {
	target    string
	re        []*regexp.Regexp
	quick     []func([]byte) (match, decided bool) // by re, nil where none (allowQuick)
	stopwords []string                             // lower case
}

// gitleaksRules are the generated rules, made once per process when the first
// prefilter is built; each compiles its expressions when first needed.
var gitleaksRules = sync.OnceValue(func() []*glRule {
	rules := make([]*glRule, len(gitleaksRuleData))
	for i := range gitleaksRuleData {
		rules[i] = &glRule{glRuleData: &gitleaksRuleData[i]}
	}
	return rules
})

var gitleaksGlobal = sync.OnceValue(func() glAllow { return compileAllow(gitleaksGlobalAllow) })

func compileAllow(a glAllowData) glAllow {
	c := glAllow{target: a.target}
	for _, re := range a.regexes {
		c.re = append(c.re, regexp.MustCompile(re))
		c.quick = append(c.quick, allowQuick(re))
	}
	for _, w := range a.stopwords {
		c.stopwords = append(c.stopwords, strings.ToLower(w))
	}
	return c
}

// allowed applies one allowlist as gitleaks does: any regex on its target, or any
// stopword in the secret.
func (a *glAllow) allowed(secret, match, line []byte) bool {
	target := secret
	switch a.target {
	case "match":
		target = match
	case "line":
		target = line
	}
	for i, re := range a.re {
		if q := a.quick[i]; q != nil {
			if m, ok := q(target); ok {
				if m {
					return true
				}
				continue
			}
		}
		if re.Match(target) {
			return true
		}
	}
	if len(a.stopwords) > 0 {
		low := bytes.ToLower(secret)
		for _, w := range a.stopwords {
			if bytes.Contains(low, []byte(w)) {
				return true
			}
		}
	}
	return false
}

// glContext bounds the text a rule's expression sees around a keyword that does not
// start the match: gitleaks runs it on the whole fragment, this engine on the line
// around the keyword, at most this far on either side.
const glBefore, glAfter = 320, 1024

// gitleaksSpans runs the rules whose keywords the prefilter found on windows around
// each keyword occurrence.
func (z *Sanitizer) gitleaksSpans(text []byte, f *filter, dst []span) []span {
	rules := gitleaksRules()
	type cover struct{ rule, end int }
	var covered []cover
	coveredEnd := func(r int) *int {
		for i := range covered {
			if covered[i].rule == r {
				return &covered[i].end
			}
		}
		covered = append(covered, cover{r, 0})
		return &covered[len(covered)-1].end
	}
	var keyBuf [512]byte
	key := keyBuf[:0]
	for _, h := range f.glHits {
		p := f.pre.pats[h.id]
		r := rules[p.idx]
		if r.id == "private-key" {
			continue // the project's private-key rule finds a superset of its matches
		}
		occ := h.end - f.base - len(p.lit)
		if occ < 0 || occ+len(p.lit) > len(text) {
			continue
		}
		cov := coveredEnd(p.idx)
		if occ < *cov {
			continue
		}
		var ws, we int
		if len(r.prefixes) > 0 {
			ok := false
			for _, pr := range r.prefixes {
				if len(text)-occ >= len(pr) {
					lit := text[occ : occ+len(pr)]
					ok = ok || r.prefixFold && equalFold(lit, strings.ToLower(pr)) || !r.prefixFold && string(lit) == pr
				}
			}
			if !ok {
				continue
			}
			if r.word && occ > 0 && isWordByte(text[occ-1]) {
				continue
			}
			ws, we = occ, min(len(text), occ+glAfter)
		} else {
			ws = max(0, occ-glBefore)
			if k := bytes.LastIndexByte(text[ws:occ], '\n'); k >= 0 {
				ws += k + 1
			}
			we = min(len(text), occ+len(p.lit)+glAfter)
			if k := bytes.IndexByte(text[occ:we], '\n'); k >= 0 {
				we = occ + k
			}
		}
		// A window never ends inside a token: the expression would see a short one.
		for we < len(text) && we < occ+8*glAfter && !isSpaceByte(text[we]) {
			we++
		}
		r = r.compiled()
		var ms [][]int
		if r.anchored != nil {
			ms = z.runs.findFirst(r.anchored, text[ws:we])
		} else {
			ms = z.runs.findAll(r.re, text[ws:we])
		}
		for _, m := range ms {
			s, e := m[0], m[1]
			if r.secretGroup > 0 && 2*r.secretGroup+1 < len(m) {
				s, e = m[2*r.secretGroup], m[2*r.secretGroup+1]
			} else {
				for g := 1; 2*g+1 < len(m); g++ {
					if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
						s, e = m[2*g], m[2*g+1]
						break
					}
				}
			}
			if s < 0 || e <= s {
				continue
			}
			secret, match, line := text[ws+s:ws+e], text[ws+m[0]:ws+m[1]], lineAround(text, ws+s, ws+e)
			key = appendPart(appendPart(appendPart(append(append(key[:0], 'g'), r.id...), secret), match), line)
			verdict := z.verdicts.get(key, func() verdict {
				if r.entropy != 0 && entropy(secret) <= r.entropy || z.glAllowed(r, secret, match, line) {
					return verdict{}
				}
				return verdict{keep: true, repl: z.placeholder(r.id, secret)}
			})
			if !verdict.keep {
				continue
			}
			dst = append(dst, span{ws + s, ws + e, r.id, verdict.repl, nil})
			*cov = max(*cov, ws+m[1])
		}
	}
	return dst
}

func (z *Sanitizer) glAllowed(r *glRule, secret, match, line []byte) bool {
	if isPlaceholder(secret) || isPlaceholderValue(secret, r.kind(secret)) || z.allowed(secret) {
		return true
	}
	if r.id == "private-key" {
		return false // no allowlist has a key block in mind; their expressions would read all of it
	}
	g := gitleaksGlobal()
	if g.allowed(secret, match, line) {
		return true
	}
	for i := range r.compiled().allow {
		if r.allow[i].allowed(secret, match, line) {
			return true
		}
	}
	return false
}

// kind is what a secret the rule found is, for placeholder checks: prefixed when
// it starts with one of the rule's prefixes (which may instead begin the match only,
// as curl's -u).
func (r *glRule) kind(secret []byte) valueKind {
	if r.id == "private-key" {
		return pem
	}
	for _, p := range r.prefixes {
		if len(secret) > len(p) && equalFold(secret[:len(p)], strings.ToLower(p)) {
			return prefixed
		}
	}
	return generic
}

func lineAround(text []byte, s, e int) []byte {
	ls := bytes.LastIndexByte(text[:s], '\n') + 1
	le := bytes.IndexByte(text[e:], '\n')
	if le < 0 {
		return text[ls:]
	}
	return text[ls : e+le]
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// crossFieldSpans adds to dst what gitleaks' context rules (those that need a
// provider's name before the value) find in text, a command's output in a JSON
// frame, when the name occurs in the command (ctx, the prefilter's hits in the
// "command" member of the same object) but not in text: `heroku auth:token` and
// the token in "aggregatedOutput". text is read as if it followed "NAME=". own is
// the filter of text itself. The sanitizer and the guard both call it on the
// strings of a frame, so they agree.
func (z *Sanitizer) crossFieldSpans(text []byte, ctx []hit, pre *prefilter, own *filter, dst []span) []span {
	if len(ctx) == 0 || len(text) == 0 {
		return dst
	}
	rules := gitleaksRules()
	var done []int
	for _, h := range ctx {
		p := pre.pats[h.id]
		if p.kind != patGitleaks || slices.Contains(done, p.idx) {
			continue
		}
		done = append(done, p.idx)
		r := rules[p.idx]
		if len(r.prefixes) > 0 || slices.ContainsFunc(own.glHits, func(o hit) bool { return own.pre.pats[o.id].idx == p.idx }) {
			continue
		}
		prefix := r.keywords[0] + "="
		view := append([]byte(prefix), text[:min(len(text), glAfter)]...)
		for _, m := range r.compiled().re.FindAllSubmatchIndex(view, -1) {
			s, e := -1, -1
			if r.secretGroup > 0 && 2*r.secretGroup+1 < len(m) {
				s, e = m[2*r.secretGroup], m[2*r.secretGroup+1]
			} else if len(m) >= 4 {
				s, e = m[2], m[3]
			}
			if s < len(prefix) || e <= s {
				continue
			}
			secret := view[s:e]
			if r.entropy != 0 && entropy(secret) <= r.entropy {
				continue
			}
			if z.glAllowed(r, secret, view[m[0]:m[1]], lineAround(view, s, e)) {
				continue
			}
			dst = append(dst, span{s - len(prefix), e - len(prefix), r.id, z.placeholder(r.id, secret), nil})
		}
	}
	return dst
}
