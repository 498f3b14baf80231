package record

import (
	"fmt"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// Copy copies every entry of another recording through s (made with Copying set,
// after Create): frames go through the pipeline (sanitized, followed by the
// redactions they needed), the free text of annotations and segment commands is
// sanitized, and the header copies in meta entries lose their secrets. The caller
// then calls Finish with the source's trailer.
func (s *Session) Copy(rd *recorder.Reader) error {
	z := s.Sanitizer
	for e, err := range rd.Entries() {
		if err != nil {
			return err
		}
		switch e.Type {
		case recorder.TypeFrame:
			f := &wire.Frame{Seq: e.Seq, Time: e.Time, Dir: e.Dir, Line: e.Line, Msg: e.Msg}
			if err := s.Frame(f); err != nil {
				return err
			}
			continue
		case recorder.TypeMeta:
			if e.Header != nil && z != nil {
				h := *e.Header
				h.Command, h.Notes = z.Strings(h.Command), z.Strings(h.Notes)
				e.Header = &h
			}
		case recorder.TypeSegment:
			if z != nil {
				e.Command = z.Strings(e.Command)
			}
		}
		if z != nil {
			e.Reason, e.Detail = z.Text(e.Reason), z.Text(e.Detail)
		}
		if err := s.Writer.WriteEntry(e); err != nil {
			return fmt.Errorf("%s entry of seq %d: %w", e.Type, e.Seq, err)
		}
	}
	return nil
}

// CopyFile copies the recording rd reads into a new recording at path through s
// (Copying is set: the copy's meta entries come from the source): Create (its
// errors as they are, recorder.ErrExists among them), Copy, then Finish with the
// source's trailer, or for a source cut short one saying so. A copy that fails
// before Finish leaves nothing at path; Finish's errors are the guard's.
func (s *Session) CopyFile(path string, rd *recorder.Reader, o recorder.Options) error {
	s.Copying = true
	if err := s.Create(path, rd.Header(), o); err != nil {
		return err
	}
	if err := s.Copy(rd); err != nil {
		s.Writer.Abort()
		return err
	}
	t := recorder.Trailer{Ended: recorder.EndError, ExitCode: -1, Error: "the source recording has no trailer (it was cut short)"}
	if src := rd.Trailer(); src != nil {
		t = *src
	}
	_, err := s.Finish(t)
	return err
}
