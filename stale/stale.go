// Package stale says whether a recording is too old to trust: recorded longer ago
// than a maximum age, or made by a Codex older than a minimum version. It reads a
// recording's header and meta entries only; it does not replay, record, run or
// find Codex binaries (the caller resolves "the installed version").
package stale

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/schema"
)

// Policy is what makes a recording stale. The zero value finds nothing stale.
type Policy struct {
	// MaxAge: a recording started longer ago than this is stale; 0, no limit.
	MaxAge time.Duration
	// MinCodex: a recording made by an older Codex ("0.171.0") is stale; "", no
	// limit. A recording that does not say its Codex version is stale too.
	MinCodex string
	// Now is the time ages are measured at; zero means time.Now().
	Now time.Time
}

// Active reports whether the policy can find anything stale.
func (p Policy) Active() bool { return p.MaxAge > 0 || p.MinCodex != "" }

// Validate reports a policy that cannot be applied.
func (p Policy) Validate() error {
	if p.MaxAge < 0 {
		return fmt.Errorf("maximum age %v: want 0 (none) or more", p.MaxAge)
	}
	if p.MinCodex != "" && !schema.ValidVersion(p.MinCodex) {
		return fmt.Errorf("minimum Codex version %q: want a version such as 0.171.0", p.MinCodex)
	}
	return nil
}

// Result is what the policy says of one recording.
type Result struct {
	Path    string
	Started time.Time // zero when the header does not say
	Codex   string    // the Codex version that made it, "" when unknown
	// Reasons say why the recording is stale, one line each; empty when fresh.
	Reasons []string
}

// Stale reports whether any reason was found.
func (r Result) Stale() bool { return len(r.Reasons) > 0 }

// String is "PATH: reason; reason".
func (r Result) String() string {
	if !r.Stale() {
		return r.Path + ": fresh"
	}
	return r.Path + ": " + strings.Join(r.Reasons, "; ")
}

// Check applies the policy to a recording's header (meta entries merged in).
func Check(h recorder.Header, p Policy) Result {
	r := Result{Codex: h.CodexVersion}
	if t, err := time.Parse(time.RFC3339Nano, h.Started); err == nil {
		r.Started = t
	}
	if p.MaxAge > 0 {
		now := p.Now
		if now.IsZero() {
			now = time.Now()
		}
		switch {
		case r.Started.IsZero():
			r.Reasons = append(r.Reasons, "the recording does not say when it was made (maximum age "+p.MaxAge.String()+")")
		case now.Sub(r.Started) > p.MaxAge:
			r.Reasons = append(r.Reasons, fmt.Sprintf("recorded %s ago (%s), older than the maximum age %s",
				age(now.Sub(r.Started)), r.Started.UTC().Format("2006-01-02"), p.MaxAge))
		}
	}
	if p.MinCodex != "" {
		switch {
		case r.Codex == "":
			r.Reasons = append(r.Reasons, "the recording does not say which Codex made it (minimum "+p.MinCodex+")")
		case schema.CompareVersions(r.Codex, p.MinCodex) < 0:
			r.Reasons = append(r.Reasons, fmt.Sprintf("made by Codex %s, older than %s", r.Codex, p.MinCodex))
		}
	}
	return r
}

// age renders a duration in days past a day.
func age(d time.Duration) string {
	if d >= 48*time.Hour {
		return fmt.Sprintf("%d days", int(d/(24*time.Hour)))
	}
	return d.Round(time.Minute).String()
}

// File reads the recording at path and applies the policy.
func File(path string, p Policy) (Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return Result{Path: path}, err
	}
	defer f.Close()
	rd, err := recorder.NewReader(f, path)
	if err != nil {
		return Result{Path: path}, err
	}
	// Meta entries (the Codex version, learned from the initialize answer) come
	// after the header: read to the end.
	for _, err := range rd.Entries() {
		if err != nil {
			break
		}
	}
	r := Check(rd.Header(), p)
	r.Path = path
	return r, nil
}

// Dir applies the policy to every recording (*.jsonl) under root, in path order.
// Files that are not recordings are reported in the joined error, the others still
// checked.
func Dir(root string, p Policy) ([]Result, error) {
	paths, err := recorder.Files(root)
	if err != nil {
		return nil, err
	}
	var out []Result
	var errs []error
	for _, path := range paths {
		r, err := File(path, p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, r)
	}
	return out, errors.Join(errs...)
}
