package schema

import (
	"errors"
	"fmt"
	"sync"
)

// Source says where the Codex version of a session came from. The policy tries
// them in this order: an explicit choice, the initialize response's userAgent, the
// recording's header, and last the fallback (the newest embedded version).
type Source string

const (
	FromExplicit  Source = "explicit"
	FromUserAgent Source = "initialize userAgent"
	FromHeader    Source = "recording header"
	FromFallback  Source = "fallback"
)

// Choice is the version policy's answer for one session.
type Choice struct {
	Codex  string // the Codex version the session is from ("" when unknown)
	Schema string // the embedded version validated against
	From   Source
	Note   string // why Schema differs from Codex, or how it was chosen without one
}

// Choose applies the version policy to what is known of a session: the explicit
// version (a flag), the initialize response's Codex version and the recording
// header's, any of them empty. A version that is not embedded uses the nearest older
// embedded one; one older than every embedded version uses the oldest; with nothing
// known, the newest embedded. Only a malformed version is an error.
func Choose(explicit, userAgent, header string) (Choice, error) {
	c := Choice{From: FromFallback}
	switch {
	case explicit != "":
		c.Codex, c.From = explicit, FromExplicit
	case userAgent != "":
		c.Codex, c.From = userAgent, FromUserAgent
	case header != "":
		c.Codex, c.From = header, FromHeader
	}
	emb := Embedded()
	if len(emb) == 0 {
		return c, errors.New("schema: no embedded versions")
	}
	if c.Codex == "" {
		c.Schema = emb[len(emb)-1]
		c.Note = fmt.Sprintf("the session never said its codex version; validating against %s, the newest embedded", c.Schema)
		return c, nil
	}
	nv, exact, err := Nearest(c.Codex)
	switch {
	case errors.Is(err, ErrUnknownVersion):
		c.Schema = emb[0]
		c.Note = fmt.Sprintf("codex %s (%s) is older than every embedded schema; validating against %s", c.Codex, c.From, c.Schema)
	case err != nil:
		return c, fmt.Errorf("%s: %w", c.From, err)
	default:
		c.Schema = nv
		if !exact {
			c.Note = fmt.Sprintf("codex %s (%s) has no embedded schema; validating against %s, the nearest older one", c.Codex, c.From, nv)
		}
	}
	return c, nil
}

// sets keeps each embedded version compiled once per process: every session,
// recording and command in one process shares the compiled schemas (a Set is safe
// for concurrent use).
var sets sync.Map // version -> func() (*Set, error)

// Cached returns the embedded set of version, loading it on first use.
func Cached(version string) (*Set, error) {
	f, _ := sets.LoadOrStore(version, sync.OnceValues(func() (*Set, error) { return Load(version) }))
	return f.(func() (*Set, error))()
}
