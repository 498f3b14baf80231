package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/wire"
)

func init() {
	registerRecordExtension(10, func(fs *flag.FlagSet) recordExtension {
		e := &validateExtension{sv: sessionValidator{classified: true}} // frames come from the proxy
		schemaFlags(fs, &e.sv.version, &e.sv.dir)
		fs.StringVar(&e.failOn, "fail-on", "none", "exit 1 after the session when findings of this `level` occurred: invalid, undeclared or none")
		fs.BoolVar(&e.off, "no-validate", false, "do not validate frames against the protocol schema")
		return e
	})
}

// validateExtension checks every frame against the session's Codex version while
// recording. Findings go into the recording right after their frame (frames that
// arrived before the version was known get theirs once it is) and are summarised on
// stderr at the end. The wire is never touched.
type validateExtension struct {
	sv       sessionValidator
	failOn   string
	level    failLevel
	off      bool
	findings []schema.Finding
	metaDone bool
}

func (e *validateExtension) Setup(h *recorder.Header) error {
	level, err := parseFailOn(e.failOn)
	if err != nil {
		return usagef("%v", err)
	}
	e.level = level
	if e.off {
		return nil
	}
	if err := e.sv.setup(); err != nil {
		return err
	}
	if e.sv.set != nil {
		h.SchemaVersion = e.sv.schemaVersion
		h.Notes = append(h.Notes, e.sv.notes...)
		e.metaDone = true
	}
	return nil
}

func (e *validateExtension) Attach(*recorder.Writer) {}

func (e *validateExtension) Frame(f *wire.Frame, _ *recorder.Writer) ([]recorder.Entry, error) {
	if e.off || f.Dir == wire.Stderr {
		return nil, nil
	}
	return e.entries(f.Time, e.sv.frame(f)), nil
}

// entries turns findings into recording entries, preceded by the meta entry naming
// the schema version the first time one is in use.
func (e *validateExtension) entries(t time.Duration, fs []schema.Finding) []recorder.Entry {
	var out []recorder.Entry
	if !e.metaDone && e.sv.set != nil {
		e.metaDone = true
		out = append(out, recorder.Entry{Type: recorder.TypeMeta, Time: t,
			Header: &recorder.Header{SchemaVersion: e.sv.schemaVersion, Notes: e.sv.notes}})
	}
	for _, f := range fs {
		e.findings = append(e.findings, f)
		out = append(out, recorder.Entry{Type: recorder.TypeFinding, Seq: f.Seq, Time: t, Dir: f.Dir,
			Msg: wire.Message{Method: f.Method}, Rule: string(f.Rule), Severity: string(f.Rule.Severity()),
			Pointer: f.Pointer, Reason: f.Reason})
	}
	return out
}

func (e *validateExtension) Finish(w *recorder.Writer, stderr io.Writer) error {
	if e.off {
		return nil
	}
	for _, en := range e.entries(w.Since(), e.sv.finish()) {
		if err := w.WriteEntry(en); err != nil {
			return &exitError{exitUsage, err}
		}
	}
	for _, n := range e.sv.notes {
		fmt.Fprintf(stderr, "codexrec record: %s\n", sanitize.MaskText(n))
	}
	if len(e.findings) == 0 {
		if e.sv.set != nil {
			fmt.Fprintf(stderr, "codexrec record: schema %s: no findings\n", sanitize.MaskText(e.sv.schemaVersion))
		}
		return nil
	}
	fmt.Fprintf(stderr, "codexrec record: schema %s: %s\n", sanitize.MaskText(e.sv.schemaVersion), countFindings(e.findings))
	const show = 10
	failed := false
	for i, f := range e.findings {
		if e.level.fails(f.Rule) {
			failed = true
		}
		if i < show {
			f := printable(f)
			fmt.Fprintf(stderr, "  %d %s %s %s %s: %s\n", f.Seq, f.Dir, orDash(f.Method), f.Rule, pointerText(f.Pointer), f.Reason)
		}
	}
	if len(e.findings) > show {
		fmt.Fprintf(stderr, "  ... and %d more (codexrec validate FILE lists them all)\n", len(e.findings)-show)
	}
	if failed {
		return &exitError{code: exitFindings, err: fmt.Errorf("schema findings at or above --fail-on %s", e.failOn)}
	}
	return nil
}
