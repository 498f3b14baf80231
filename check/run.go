package check

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
)

// Options are the settings of Run. The zero value checks nothing: Paths name the
// recordings; every rule then runs at its default severity, schema validation by
// the recording's own version, and no report is written.
type Options struct {
	// Paths are recordings, directories of them (Expand) and "-" for Stdin; none
	// is ErrNoPaths.
	Paths []string
	Stdin io.Reader
	// Disable and Severity are the rule settings as a user writes them
	// (ParseSettings); a bad one is a *SettingError before anything is read.
	Disable, Severity []string
	// Assert holds the suite's own assertions.
	Assert Assertions
	// Version and SchemaDir choose the schema (SchemaValidator); when either is set
	// it must load before any recording is read. Disabling "schema" skips both.
	Version, SchemaDir string
	// FailOn is the level at which a finding fails: the reports mark it and
	// Outcome.Failed says whether one did. The zero value is Info.
	FailOn Severity
	// Out receives the report, as text (WriteText) or, with JSON, as one JSON
	// document (WriteJSON); nil writes none.
	Out  io.Writer
	JSON bool
	// JUnit and SARIF, when set, are paths where the JUnit XML (WriteJUnit) and
	// SARIF (WriteSARIF) reports are also written. The JUnit file replaces what is
	// there, never through a link, 0600 (findings quote recorded content); the SARIF
	// file is created or truncated.
	JUnit, SARIF string
	// Log receives, one line each and masked, the recordings that could not be read.
	Log io.Writer
}

// Outcome is what Run found.
type Outcome struct {
	Results []*Result
	// Failed reports a finding at or above Options.FailOn.
	Failed bool
	// Unread joins the errors of the recordings that could not be read (each said
	// on Options.Log); the others were checked and reported.
	Unread error
}

// A ReportFileError is a report file that could not be written: Report is "JUnit"
// or "SARIF", Path the file.
type ReportFileError struct {
	Report, Path string
	Err          error
}

func (e *ReportFileError) Error() string { return e.Report + " report: " + e.Err.Error() }
func (e *ReportFileError) Unwrap() error { return e.Err }

// ErrNoPaths is Run's error when Options name no recording.
var ErrNoPaths = errors.New("no recording to check")

// ErrSchema wraps Run's error when the schema Options name cannot be loaded.
var ErrSchema = errors.New("schema")

// Run checks the recordings o.Paths name, in order, and writes the reports o asks
// for. A recording that cannot be read is said on o.Log and joined into
// Outcome.Unread; the others are still checked. Run stops between recordings once
// ctx is done. Its error is a bad setting (*SettingError), no path (ErrNoPaths), a schema that cannot be
// loaded (ErrSchema), a report that could not be written (*ReportFileError for the
// files), or ctx's.
func Run(ctx context.Context, o Options) (Outcome, error) {
	var out Outcome
	disabled, severity, err := ParseSettings(o.Disable, o.Severity)
	if err != nil {
		return out, err
	}
	if len(o.Paths) == 0 {
		return out, ErrNoPaths
	}
	ck := &Checker{Disable: disabled, Severity: severity, Assert: o.Assert}
	if !disabled[RuleSchema] {
		ck.Schema = SchemaValidator(o.Version, o.SchemaDir)
		if o.Version != "" || o.SchemaDir != "" {
			// A schema named by the caller must load: fail now, not per file.
			if _, err := ck.Schema(recorder.Header{}); err != nil {
				return out, fmt.Errorf("%w: %w", ErrSchema, err)
			}
		}
	}
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	var done error
	out.Results, out.Unread, done = ck.checkPaths(ctx, o.Paths, o.Stdin, func(err error) {
		fmt.Fprintln(log, sanitize.MaskText(err.Error()))
	})
	if done != nil {
		return out, done
	}
	out.Failed = Failed(out.Results, o.FailOn)
	return out, o.write(out.Results, disabled)
}

// write writes the reports o asks for.
func (o Options) write(results []*Result, disabled map[string]bool) error {
	if o.Out != nil {
		write := WriteText
		if o.JSON {
			write = WriteJSON
		}
		if err := write(o.Out, results, o.FailOn); err != nil {
			return err
		}
	}
	if o.JUnit != "" {
		err := recorder.WriteFile(o.JUnit, true, 0o600, func(w io.Writer) error { return WriteJUnit(w, results, o.FailOn, disabled) })
		if err != nil {
			return &ReportFileError{"JUnit", o.JUnit, err}
		}
	}
	if o.SARIF != "" {
		if err := recorder.WriteFile(o.SARIF, true, 0o600, func(w io.Writer) error { return WriteSARIF(w, results, disabled) }); err != nil {
			return &ReportFileError{"SARIF", o.SARIF, err}
		}
	}
	return nil
}

// WriteRules writes the rule list: id, default severity and summary, one a line.
func WriteRules(w io.Writer) error {
	for _, r := range rules {
		if _, err := fmt.Fprintf(w, "%-26s %-7s %s\n", r.ID, r.Severity, r.Summary); err != nil {
			return err
		}
	}
	return nil
}
