package upgrade

import (
	"context"
	"errors"
	"fmt"
	"github.com/codexrec/codexrec/setting"
	"os"
	"path/filepath"
	"strings"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/fixtures"
	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/schema"
)

// Options say what Run compares. From (or CodexFrom), To (or CodexTo) and either
// Recordings or Scenarios are required; the zero value of the rest reruns into a
// temporary directory removed at the end, finds binaries in the pinned cache and
// says nothing while it works.
type Options struct {
	From, To   string
	Recordings []string
	Scenarios  bool // capture the shipped scenarios on both versions instead
	// RerunBoth reruns each recording on From too, even one made with From.
	RerunBoth    bool
	Experimental bool   // compare the experimental schema sets
	Work         string // keep the reruns in this directory
	// Capture is the template of each capture (pipeline, timeout, MCP command, tool
	// version); its Scenario, Codex, Out and Force are set per run.
	Capture fixtures.CaptureOptions
	// Codex finds a version's binary; nil is the pinned cache (codexbin.Find).
	Codex func(version string) (string, error)
	// CodexFrom and CodexTo, when set, are the binaries of From and To in place of
	// Codex's; an empty From or To is then its binary's version (codexbin.Version).
	CodexFrom, CodexTo string
	// Progress, when set, is told each step as it starts.
	Progress func(step string)
}

// MissingError is a codex binary Run needs but cannot find: nothing was run.
type MissingError struct {
	Version string
	Err     error
}

func (e *MissingError) Error() string { return fmt.Sprintf("codex %s: %v", e.Version, e.Err) }
func (e *MissingError) Unwrap() error { return e.Err }

// Pair is one compared pair, for drawing: the two recordings, the diff's
// sessions and their diff.
type Pair struct {
	Old, New               *recorder.Recording
	OldSession, NewSession *diff.Session
	Diff                   *diff.Report
}

// Outcome is what Run produced: the report, and the pairs it compared by their
// index in Report.Recordings.
type Outcome struct {
	Report *Report
	Pairs  map[int]*Pair
	// SchemaErr says why Report.Schema is nil (a version with no embedded schema).
	SchemaErr error
}

// ErrRequired and ErrExcludes are the reasons of a *SettingError: a setting
// that must be given, one that excludes another (With).
// The reasons of a *SettingError (setting's).
var (
	ErrRequired = setting.ErrRequired
	ErrExcludes = setting.ErrExcludes
)

// A SettingError is Options that cannot be run: Setting names the field at fault,
// With the other one when two exclude each other, Err the reason (ErrRequired,
// ErrExcludes).
type SettingError = setting.Error

// Validate refuses Options that cannot be run (a *SettingError): From (or
// CodexFrom) and To (or CodexTo) are required, and either Recordings or
// Scenarios (ErrRequired when neither, ErrExcludes when both).
func (o *Options) Validate() error {
	switch {
	case o.From == "" && o.CodexFrom == "":
		return &SettingError{Setting: "From", Err: ErrRequired}
	case o.To == "" && o.CodexTo == "":
		return &SettingError{Setting: "To", Err: ErrRequired}
	case o.Scenarios && len(o.Recordings) > 0:
		return &SettingError{Setting: "Recordings", With: "Scenarios", Err: ErrExcludes}
	case !o.Scenarios && len(o.Recordings) == 0:
		return &SettingError{Setting: "Recordings", Err: ErrRequired}
	}
	return nil
}

// Run reruns each recording (or captures each shipped scenario) on From and To,
// diffs each pair, adds the schema diff and judges each recording. A recording
// whose rerun fails is judged breaking with the reason; errors are a *MissingError,
// a binary's that could not tell its version, or the work directory's; Options
// that cannot be run are Validate's *SettingError, before anything runs.
func Run(ctx context.Context, o Options) (*Outcome, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	for _, s := range []struct{ v, bin *string }{{&o.From, &o.CodexFrom}, {&o.To, &o.CodexTo}} {
		if *s.v == "" && *s.bin != "" {
			v, err := codexbin.Version(ctx, *s.bin)
			if err != nil {
				return nil, err
			}
			*s.v = v
		}
	}
	if o.From == "" || o.To == "" {
		return nil, errors.New("upgrade: want both versions")
	}
	find := o.Codex
	if find == nil {
		find = codexbin.Find
	}
	o.Codex = func(v string) (string, error) {
		switch {
		case v == o.From && o.CodexFrom != "":
			return o.CodexFrom, nil
		case v == o.To && o.CodexTo != "":
			return o.CodexTo, nil
		}
		return find(v)
	}
	bins := map[string]string{}
	for _, v := range o.versions() {
		b, err := o.Codex(v)
		if err != nil {
			return nil, &MissingError{Version: v, Err: err}
		}
		bins[v] = b
	}
	work := o.Work
	if work == "" {
		tmp, err := os.MkdirTemp("", "codexrec-upgrade-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		work = tmp
	} else if err := os.MkdirAll(work, 0o700); err != nil {
		return nil, err
	}
	out := &Outcome{Report: &Report{From: o.From, To: o.To}, Pairs: map[int]*Pair{}}
	rep := out.Report
	rep.Schema, out.SchemaErr = SchemaDiff(o.From, o.To, o.Experimental)

	inputs := o.Recordings
	if o.Scenarios {
		inputs = fixtures.Names()
	}
	for i, in := range inputs {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		name := strings.TrimSuffix(filepath.Base(in), ".jsonl")
		base := filepath.Join(work, fmt.Sprintf("%02d-%s", i+1, name))
		var notes []string
		old, err := o.side(ctx, in, o.From, bins, true, base+"-"+o.From+".jsonl", &notes)
		var nw string
		if err == nil {
			nw, err = o.side(ctx, in, o.To, bins, false, base+"-"+o.To+".jsonl", &notes)
		}
		if err != nil {
			r := Failed(name, err)
			r.Notes = notes
			rep.Recordings = append(rep.Recordings, r)
			continue
		}
		oldRec, err1 := recorder.ReadFile(old)
		newRec, err2 := recorder.ReadFile(nw)
		oldS, newS, err3 := diff.LoadFiles(old, nw, diff.Options{})
		if err := errors.Join(err1, err2, err3); err != nil {
			rep.Recordings = append(rep.Recordings, Failed(name, err))
			continue
		}
		d := diff.Compare(oldS, newS)
		r := Judge(name, oldRec, newRec, d, rep.Schema)
		r.Notes = notes
		out.Pairs[len(rep.Recordings)] = &Pair{Old: oldRec, New: newRec, OldSession: oldS, NewSession: newS, Diff: d}
		rep.Recordings = append(rep.Recordings, r)
	}
	return out, nil
}

// versions are the versions whose binaries Run will need.
func (o *Options) versions() []string {
	need := []string{o.To}
	if o.From == o.To {
		return need
	}
	if o.Scenarios || o.RerunBoth {
		return append(need, o.From)
	}
	for _, p := range o.Recordings {
		if v, err := recordedVersion(p); err != nil || v != o.From {
			return append(need, o.From)
		}
	}
	return need
}

// side returns the session of input on version v: on the from side the recording
// itself when it was made with v (unless RerunBoth), else its rerun (or, with
// Scenarios, a capture).
func (o *Options) side(ctx context.Context, input, v string, bins map[string]string, from bool, out string, notes *[]string) (string, error) {
	c := o.Capture
	c.Codex, c.Out, c.Force = bins[v], out, true
	c.Pipeline.Version = v
	if o.Scenarios {
		sc, err := fixtures.Load(input)
		if err != nil {
			return "", err
		}
		c.Scenario = sc
		o.progress(fmt.Sprintf("capturing %s on codex %s", input, v))
		if _, err := fixtures.Capture(ctx, c); err != nil {
			return "", fmt.Errorf("capture on codex %s: %w", v, err)
		}
		return out, nil
	}
	rec, err := recorder.ReadFile(input)
	if err != nil {
		return "", err
	}
	if from && !o.RerunBoth && rec.Header.CodexVersion == v {
		return input, nil
	}
	o.progress(fmt.Sprintf("rerunning %s on codex %s", input, v))
	res, err := fixtures.Rerun(ctx, input, c)
	for _, m := range res.Remarks() {
		*notes = append(*notes, "on "+v+": "+m)
	}
	if err != nil {
		return "", fmt.Errorf("rerun on codex %s: %w", v, err)
	}
	return out, nil
}

func (o *Options) progress(s string) {
	if o.Progress != nil {
		o.Progress(s)
	}
}

// SchemaDiff compares the schema sets of two Codex versions (each the nearest
// embedded one).
func SchemaDiff(from, to string, experimental bool) (*diff.SchemaReport, error) {
	var sets [2]*diff.SchemaSet
	for i, v := range []string{from, to} {
		nv, _, err := schema.Nearest(v)
		if err != nil {
			return nil, err
		}
		set, err := schema.Load(nv)
		if err != nil {
			return nil, err
		}
		if sets[i], err = diff.LoadSchemaSet(set, experimental, v); err != nil {
			return nil, err
		}
	}
	return diff.CompareSchemas(sets[0], sets[1]), nil
}

// Causes lists what reaches tier min, in words: each recording at or above it
// (breaking is TierBreaking, changed TierWarning) and the schema diff's changes.
func (r *Report) Causes(min diff.Tier) []string {
	var out []string
	for _, rec := range r.Recordings {
		switch {
		case rec.Status == Breaking:
			out = append(out, "recording "+rec.Name+" is breaking")
		case rec.Status == Changed && min <= diff.TierWarning:
			out = append(out, "recording "+rec.Name+" changed")
		}
	}
	if s := r.Schema; s != nil {
		n := 0
		for _, c := range s.Changes {
			if c.Tier >= min {
				n++
			}
		}
		if n > 0 {
			out = append(out, fmt.Sprintf("the schema diff has %d change(s) at or above %s", n, min))
		}
	}
	return out
}

// recordedVersion is the Codex version in a recording's header.
func recordedVersion(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	rd, err := recorder.NewReader(f, path)
	if err != nil {
		return "", err
	}
	return rd.Header().CodexVersion, nil
}
