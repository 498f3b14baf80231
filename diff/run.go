package diff

import (
	"fmt"
	"io"

	"github.com/codexrec/codexrec/recorder"
)

// RunOptions are the settings of Run. The zero value compares with the built-in
// normalisation, streaming, and writes nothing.
type RunOptions struct {
	Options
	// Out receives the report: text (WriteText, coloured with Colour) or, with
	// JSON, one JSON document; nil writes none.
	Out          io.Writer
	JSON, Colour bool
	// Log receives, one line each, the recordings' structural problems.
	Log io.Writer
	// Page, when set, gets the sessions loaded whole (LoadFiles) and their report,
	// before Out gets the report, to draw them; its error ends Run. Without it the
	// files are compared without holding their messages (CompareFiles).
	Page func(old, new *Session, r *Report) error
}

// Run compares the recordings at oldPath and newPath and writes the report as o
// asks. Its error is a recording that could not be read, Page's, or Out's.
func Run(oldPath, newPath string, o RunOptions) (*Report, error) {
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	warn := func(name string, ps []recorder.Problem) {
		if w := recorder.Warning(name, ps); w != "" {
			fmt.Fprintln(log, w)
		}
	}
	var r *Report
	if o.Page != nil {
		old, nw, err := LoadFiles(oldPath, newPath, o.Options)
		if err != nil {
			return nil, err
		}
		warn(old.Name, old.Problems)
		warn(nw.Name, nw.Problems)
		r = Compare(old, nw)
		if err := o.Page(old, nw, r); err != nil {
			return r, err
		}
	} else {
		var op, np []recorder.Problem
		var err error
		if r, op, np, err = CompareFiles(oldPath, newPath, o.Options); err != nil {
			return nil, err
		}
		warn(oldPath, op)
		warn(newPath, np)
	}
	return r, writeReport(o.Out, r, o.JSON, o.Colour)
}

// Differs reports whether the sessions differ: not the Same, and, with
// ignoreMoves, not only in the order of some messages (OnlyMoves).
func (r *Report) Differs(ignoreMoves bool) bool {
	return !r.Same && !(ignoreMoves && r.OnlyMoves())
}

// SchemaOptions are the settings of Schemas. The zero value compares the stable
// sets and writes nothing.
type SchemaOptions struct {
	// Experimental compares the experimental sets (methods behind experimentalApi).
	Experimental bool
	// Out receives the report: text (coloured with Colour) or, with JSON, one
	// JSON document; nil writes none.
	Out          io.Writer
	JSON, Colour bool
}

// Schemas compares two protocol versions, each an embedded version or a folder of
// generated schemas (LoadSchemaArg), and writes the report as o asks. Its error is
// a set that could not be loaded, or Out's.
func Schemas(oldArg, newArg string, o SchemaOptions) (*SchemaReport, error) {
	sets := make([]*SchemaSet, 2)
	for i, a := range []string{oldArg, newArg} {
		var err error
		if sets[i], err = LoadSchemaArg(a, o.Experimental); err != nil {
			return nil, err
		}
	}
	r := CompareSchemas(sets[0], sets[1])
	return r, writeReport(o.Out, r, o.JSON, o.Colour)
}

// Reaches reports whether a change of tier t or higher was found.
func (r *SchemaReport) Reaches(t Tier) bool {
	worst, any := r.Worst()
	return any && worst >= t
}

// WriteSchemaRules writes every schema rule id with its tier, one a line.
func WriteSchemaRules(w io.Writer) error {
	for _, r := range Rules() {
		if _, err := fmt.Fprintf(w, "%-8s %s\n", r.Tier, r.Rule); err != nil {
			return err
		}
	}
	return nil
}

// writeReport writes r to w (nil: nowhere) as JSON or as text.
func writeReport(w io.Writer, r interface {
	WriteJSON(io.Writer) error
	WriteText(io.Writer, bool) error
}, asJSON, colour bool) error {
	switch {
	case w == nil:
		return nil
	case asJSON:
		return r.WriteJSON(w)
	}
	return r.WriteText(w, colour)
}
