package view

import (
	"github.com/codexrec/codexrec/recorder"
)

// A Timeline is what Render writes a recording to: Text or TimelineJSON.
type Timeline interface {
	Header(name string, h recorder.Header) error
	Entry(e *recorder.Entry) error
	Trailer(tr *recorder.Trailer) error
}

// Render writes the recording rd reads (named name) to t: its header, every
// entry, its trailer. On a read error it flushes what t buffered (a Timeline with
// a Flush method) and returns the error; the reader's problems are the caller's to
// report.
func Render(rd *recorder.Reader, name string, t Timeline) error {
	if err := t.Header(name, rd.Header()); err != nil {
		return err
	}
	for e, err := range rd.Entries() {
		if err != nil {
			if f, ok := t.(interface{ Flush() error }); ok {
				f.Flush()
			}
			return err
		}
		if err := t.Entry(&e); err != nil {
			return err
		}
	}
	return t.Trailer(rd.Trailer())
}
