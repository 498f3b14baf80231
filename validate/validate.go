// Package validate checks every message of a recording against the JSON Schemas of
// the Codex version that made it (schema's version policy) and reports the findings
// as text, JSON or JSON Lines. It reads recordings through recorder; it does not
// validate a live session (record's Validator stage does) nor decide exit codes.
package validate

import (
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/wire"
)

// Options choose the schema. The zero value follows the version policy: the
// initialize response's userAgent, else the recording header, else the newest
// embedded version.
type Options struct {
	Version   string // a Codex version to validate against instead of the recording's
	SchemaDir string // a folder of generated schemas instead of the embedded ones
}

// Result is what one recording's validation found.
type Result struct {
	File          string
	Frames        int
	CodexVersion  string // the recording's, else the version the policy chose
	SchemaVersion string // the schema set validated against
	// Findings are the first ExampleLimit findings of each rule and method (see
	// ExampleLimit), in seq order.
	Findings []schema.Finding
	// Elided counts the findings not listed in Findings.
	Elided  []Elided
	Warning string   // the recording's structural problems, one line ("" when none)
	Notes   []string // what the version policy said (a fallback to an older version)
}

// ErrSchema marks a schema that could not be loaded: no file would validate.
var ErrSchema = errors.New("schema")

// File validates the recording at path.
func File(path string, o Options) (*Result, error) {
	sv := &schema.SessionValidator{Version: o.Version, Dir: o.SchemaDir}
	if err := sv.Start(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSchema, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rd, err := recorder.NewReader(f, path)
	if err != nil {
		return nil, err
	}
	res, err := entries(rd, sv)
	if err != nil {
		return nil, err
	}
	res.File, res.Notes = path, sv.Notes()
	return res, nil
}

// entries streams a recording through sv. Findings a recording already holds are
// ignored: they are recomputed.
func entries(rd *recorder.Reader, sv *schema.SessionValidator) (*Result, error) {
	res := &Result{}
	var el elider
	add := func(fs []schema.Finding) {
		for i := range fs {
			if el.keep(res, &fs[i]) {
				res.Findings = append(res.Findings, fs[i])
			}
		}
	}
	for e, err := range rd.Entries() {
		if err != nil {
			return nil, err
		}
		switch e.Type {
		case recorder.TypeSegment:
			sv.Restart()
		case recorder.TypeFrame:
			res.Frames++
			fr := wire.Frame{Seq: e.Seq, Time: e.Time, Dir: e.Dir, Line: e.Line, Msg: e.Msg}
			add(sv.Frame(&fr))
		}
	}
	res.Warning = rd.Warning()
	res.CodexVersion = rd.Header().CodexVersion
	sv.Header = res.CodexVersion
	add(sv.Finish())
	if c, ok := sv.Chosen(); ok {
		res.SchemaVersion = c.Schema
		if res.CodexVersion == "" && c.From != schema.FromExplicit {
			res.CodexVersion = c.Codex
		}
	}
	sort.SliceStable(res.Findings, func(i, j int) bool { return res.Findings[i].Seq < res.Findings[j].Seq })
	return res, nil
}
