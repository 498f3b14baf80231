package main

import (
	"errors"
	"fmt"
	"sync"

	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/wire"
)

// sessionValidator validates one session whose Codex version may only become known
// from its initialize response. Until then frames wait (in order, copied); once the
// version is known they are checked and their findings returned late.
type sessionValidator struct {
	version string // --codex-version
	dir     string // --schema-dir

	codex         string // the Codex version seen in the session
	schemaVersion string // the embedded version in use, or the --schema-dir label
	notes         []string
	set           *schema.Set
	v             *schema.Validator
	pending       []wire.Frame
	// classified says frames come from the proxy, classified and paired already; frames
	// read from a file are classified again rather than trusting what the file says.
	classified bool
}

// maxPending bounds the frames held while the version is unknown; past it the newest
// embedded version is assumed.
const maxPending = 1024

// setup loads the set now when the flags fix it.
func (s *sessionValidator) setup() error {
	switch {
	case s.dir != "":
		set, err := schema.LoadDir(s.dir, s.version)
		if err != nil {
			return err
		}
		label := s.version
		if label == "" {
			label = "custom"
		}
		s.use(set, label)
		s.notes = append(s.notes, "validating against the schemas in "+s.dir)
	case s.version != "":
		return s.choose(s.version, "--codex-version")
	}
	return nil
}

// choose loads the embedded set for codex version v, or the nearest older one.
func (s *sessionValidator) choose(v, from string) error {
	nv, exact, err := schema.Nearest(v)
	switch {
	case errors.Is(err, schema.ErrUnknownVersion):
		emb := schema.Embedded()
		nv = emb[0]
		s.notes = append(s.notes, fmt.Sprintf("codex %s (%s) is older than every embedded schema; validating against %s", v, from, nv))
	case err != nil:
		return fmt.Errorf("%s: %w", from, err)
	case !exact:
		s.notes = append(s.notes, fmt.Sprintf("codex %s (%s) has no embedded schema; validating against %s, the nearest older one", v, from, nv))
	}
	set, err := loadSet(nv)
	if err != nil {
		return err
	}
	s.use(set, nv)
	return nil
}

func (s *sessionValidator) use(set *schema.Set, label string) {
	s.set, s.v, s.schemaVersion = set, schema.NewValidator(set), label
}

// restart begins a new server process lifetime: requests of the old one are forgotten.
func (s *sessionValidator) restart() {
	if s.set != nil {
		s.v = schema.NewValidator(s.set)
	}
}

// frame checks f, or holds it until the version is known, and returns the findings
// of every frame it could check now.
func (s *sessionValidator) frame(f *wire.Frame) []schema.Finding {
	if s.v == nil {
		if v := wire.CodexVersion(f); v != "" {
			s.codex = v
			if err := s.choose(v, "initialize userAgent"); err != nil {
				s.notes = append(s.notes, err.Error())
			}
		}
	}
	if s.v == nil {
		if len(s.pending) < maxPending {
			c := *f
			c.Line = append([]byte(nil), f.Line...)
			s.pending = append(s.pending, c)
			return nil
		}
		s.fallback()
		if s.v == nil {
			return nil
		}
	}
	out := s.drain()
	return append(out, s.check(f)...)
}

func (s *sessionValidator) check(f *wire.Frame) []schema.Finding {
	if s.classified {
		return s.v.CheckClassified(f)
	}
	return s.v.Check(f)
}

// fallback picks a version when the session never said which: the recording's
// header, else the newest embedded one.
func (s *sessionValidator) fallback() {
	if s.codex != "" {
		if err := s.choose(s.codex, "recording header"); err == nil {
			return
		}
	}
	emb := schema.Embedded()
	s.notes = append(s.notes, fmt.Sprintf("the session never said its codex version; validating against %s, the newest embedded", emb[len(emb)-1]))
	if err := s.choose(emb[len(emb)-1], "newest embedded"); err != nil {
		s.notes = append(s.notes, err.Error())
	}
}

func (s *sessionValidator) drain() []schema.Finding {
	var out []schema.Finding
	for i := range s.pending {
		out = append(out, s.check(&s.pending[i])...)
	}
	s.pending = nil
	return out
}

// finish checks frames still waiting for a version.
func (s *sessionValidator) finish() []schema.Finding {
	if len(s.pending) == 0 {
		return nil
	}
	if s.v == nil {
		s.fallback()
	}
	if s.v == nil {
		return nil
	}
	return s.drain()
}

// loadedSets keeps each embedded version loaded once per process: validating many
// recordings compiles each method's schema once, not once per file.
var loadedSets sync.Map

func loadSet(version string) (*schema.Set, error) {
	if s, ok := loadedSets.Load(version); ok {
		return s.(*schema.Set), nil
	}
	s, err := schema.Load(version)
	if err != nil {
		return nil, err
	}
	actual, _ := loadedSets.LoadOrStore(version, s)
	return actual.(*schema.Set), nil
}
