package validate

import (
	"errors"
	"fmt"
	"io"

	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/schema"
)

// Format is how Files writes its results.
type Format int

const (
	Text  Format = iota // Result.WriteText per file
	JSON                // one Report document after the last file
	JSONL               // Result.WriteJSONL per file: one object per finding
)

// FilesOptions are the settings of Files. The zero value validates as Options{}
// does, writes text, fails on no finding and says nothing of unreadable files.
type FilesOptions struct {
	Options
	Format Format
	// Fails, when set, tells whether a finding of the rule fails the run.
	Fails func(schema.Rule) bool
	// Log receives, one line each, what is not a result: a recording that could not
	// be read, its structural problems, the version policy's notes; masked.
	Log io.Writer
}

// ErrUnread is Files' error when some recordings could not be read (each one said
// on Log); the others were validated and written.
var ErrUnread = errors.New("some recordings could not be read")

// Files validates each recording at paths and writes the results to out. failed
// reports a finding Fails accepts. A schema that cannot be loaded ends it at once
// (ErrSchema); so does a write error.
func Files(paths []string, out io.Writer, o FilesOptions) (failed bool, err error) {
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	var unread bool
	var report Report
	for _, path := range paths {
		res, err := File(path, o.Options)
		if errors.Is(err, ErrSchema) {
			return false, err
		}
		if err != nil {
			fmt.Fprintln(log, sanitize.MaskText(err.Error()))
			unread = true
			continue
		}
		if res.Warning != "" {
			fmt.Fprintln(log, res.Warning)
		}
		for _, n := range res.Notes {
			fmt.Fprintf(log, "%s: %s\n", path, sanitize.MaskText(n))
		}
		report.Failed = report.Failed || res.Failed(o.Fails)
		switch o.Format {
		case JSON:
			report.Add(res)
		case JSONL:
			err = res.WriteJSONL(out)
		default:
			err = res.WriteText(out)
		}
		if err != nil {
			return report.Failed, err
		}
	}
	if o.Format == JSON {
		if err := report.WriteJSON(out); err != nil {
			return report.Failed, err
		}
	}
	if unread {
		return report.Failed, ErrUnread
	}
	return report.Failed, nil
}
