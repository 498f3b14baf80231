package view

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
)

// ShowOptions are the settings of Show. The zero value writes nothing useful: set
// Out; the recording is then shown whole as a text timeline, once.
type ShowOptions struct {
	Out io.Writer
	// JSON writes the frames as one JSON document (TimelineJSON) once the
	// recording is read; otherwise a Text timeline is written as it is read.
	JSON bool
	// Color, Raw and Deltas are Text's.
	Color, Raw, Deltas bool
	// Methods and Thread keep only the frames they match (as Text's and
	// TimelineJSON's).
	Methods []string
	Thread  string
	// Follow keeps reading a recording still being written (recorder.Follow)
	// until its trailer, polling every Poll (0: recorder's default).
	Follow bool
	Poll   time.Duration
	// Log receives, one line each, the recording's structural problems (masked)
	// and, with Follow, that the recording is awaited.
	Log io.Writer
	// Gone, with Follow, is called with the temporary file's name when the
	// process writing it is gone (recorder.FollowOptions.Gone).
	Gone func(tmp string)
}

// Show writes the recording at path as o asks. With Follow it waits for the
// recording until ctx ends.
func Show(ctx context.Context, path string, o ShowOptions) error {
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	var t Timeline
	var text *Text
	j := &TimelineJSON{Methods: o.Methods, Thread: o.Thread}
	if t = j; !o.JSON {
		text = &Text{W: o.Out, Color: o.Color, Raw: o.Raw, Deltas: o.Deltas, Methods: o.Methods, Thread: o.Thread}
		t = text
	}
	var r io.Reader
	var follower *recorder.Follower
	if o.Follow {
		fo := recorder.FollowOptions{Poll: o.Poll, Gone: o.Gone,
			Waiting: func() { fmt.Fprintf(log, "waiting for %s to be recorded\n", path) }}
		if text != nil {
			fo.Idle = text.Flush
		}
		f, err := recorder.Follow(ctx, path, fo)
		if err != nil {
			return err
		}
		defer f.Close()
		r, follower = f, f
	} else {
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("recording: %w", err)
		}
		defer f.Close()
		r = f
	}
	rd, err := recorder.NewReader(r, path)
	if err != nil {
		return err
	}
	if follower != nil {
		follower.Done = func() bool { return rd.Trailer() != nil }
	}
	err = Render(rd, path, t)
	if w := rd.Warning(); w != "" {
		fmt.Fprintln(log, sanitize.MaskText(w))
	}
	if err != nil || text != nil {
		return err
	}
	return j.WriteJSON(o.Out)
}

// SummaryOptions are the settings of WriteSummary. The zero value writes text and
// says nothing of problems.
type SummaryOptions struct {
	JSON bool // one JSON document (Overview.WriteJSON) instead of text
	// Log receives the recording's structural problems, one line, masked.
	Log io.Writer
}

// WriteSummary writes the Overview of the recording at path (ReadOverview) to w.
func WriteSummary(w io.Writer, path string, o SummaryOptions) error {
	ov, rd, err := ReadOverview(path)
	if rd != nil && o.Log != nil {
		if warn := rd.Warning(); warn != "" {
			fmt.Fprintln(o.Log, sanitize.MaskText(warn))
		}
	}
	switch {
	case err != nil:
		return err
	case o.JSON:
		return ov.WriteJSON(w)
	}
	return ov.WriteText(w)
}

// WriteDiffHTMLFiles is WriteDiffHTML with the recordings read whole from where
// the sessions were loaded (their Name): the page shows their exact frames.
func (p Page) WriteDiffHTMLFiles(w io.Writer, oldS, newS *diff.Session, r *diff.Report) error {
	oldRec, err := recorder.ReadFile(oldS.Name)
	if err != nil {
		return err
	}
	newRec, err := recorder.ReadFile(newS.Name)
	if err != nil {
		return err
	}
	return p.WriteDiffHTML(w, oldRec, newRec, oldS, newS, r)
}
