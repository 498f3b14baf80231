package sanitize

import (
	"regexp"
	"sync"
)

// lazyRE is a shape rule's expression, compiled the first time a text holds one of
// the rule's literals: a run whose traffic never has one compiles nothing (the
// rules' literals alone build the prefilter).
type lazyRE struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

func lazyRegexp(src string) *lazyRE { return &lazyRE{src: src} }

// get compiles the expression once (it is a constant of the package: it compiles).
func (l *lazyRE) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}
