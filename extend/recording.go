package extend

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// openRecording creates the extended recording: the original's entries, then a
// segment entry for the new lifetime. It returns the writer's session, the last
// seq and the time origin the new frames continue from.
func (r *run) openRecording(s *record.Session, segment int) (lastSeq int64, origin time.Time, err error) {
	f, err := os.Open(r.o.Path)
	if err != nil {
		return 0, time.Time{}, err
	}
	defer f.Close()
	rd, err := recorder.NewReader(f, r.o.Path)
	if err != nil {
		return 0, time.Time{}, err
	}
	h := rd.Header() // the header line itself: metas are copied as entries
	var entries []recorder.Entry
	var last time.Duration
	merged := h
	for e, err := range rd.Entries() {
		if err != nil {
			return 0, time.Time{}, fmt.Errorf("reading %s: %w", r.o.Path, err)
		}
		if e.Type == recorder.TypeTrailer {
			continue
		}
		if e.Type == recorder.TypeMeta && e.Header != nil {
			// The reader hands a meta entry's header merged into what came before:
			// the copy holds only what the entry said.
			d := headerDelta(merged, *e.Header)
			merged, e.Header = *e.Header, &d
		}
		entries = append(entries, e)
		last = max(last, e.Time)
		if e.Type == recorder.TypeFrame {
			lastSeq = max(lastSeq, e.Seq)
		}
	}
	// The new lifetime's clock continues the recording's: its first frame comes
	// just after the last one recorded.
	origin = time.Now().Add(-last - time.Millisecond)
	first := true
	now := func() time.Time {
		if first {
			first = false
			return origin
		}
		return time.Now()
	}
	prep := recorder.Header{Command: r.o.Command}
	if err := s.Prepare(&prep); err != nil {
		return 0, time.Time{}, err
	}
	w, err := recorder.Create(r.o.Path, h, recorder.Options{Force: true, Now: now})
	if err != nil {
		return 0, time.Time{}, err
	}
	s.Attach(w)
	for _, e := range entries {
		if e.Type == recorder.TypeFrame {
			err = w.WriteFrame(&wire.Frame{Seq: e.Seq, Time: e.Time, Dir: e.Dir, Msg: e.Msg, Line: e.Line, Undelivered: e.Undelivered})
		} else {
			err = w.WriteEntry(e)
		}
		if err != nil {
			w.Abort()
			return 0, time.Time{}, err
		}
	}
	// The segment's command is the one Prepare sanitized for the header.
	if err := w.WriteEntry(recorder.Entry{Type: recorder.TypeSegment, Time: w.Since(), Segment: segment,
		Extends: r.sc.Segment, Command: prep.Command}); err != nil {
		w.Abort()
		return 0, time.Time{}, err
	}
	return lastSeq, origin, nil
}

// headerDelta is the header holding the members of cur that differ from prev.
func headerDelta(prev, cur recorder.Header) recorder.Header {
	var p, c map[string]json.RawMessage
	pb, _ := json.Marshal(prev)
	cb, _ := json.Marshal(cur)
	json.Unmarshal(pb, &p)
	json.Unmarshal(cb, &c)
	for k, v := range c {
		if string(p[k]) == string(v) {
			delete(c, k)
		}
	}
	var d recorder.Header
	b, _ := json.Marshal(c)
	json.Unmarshal(b, &d)
	return d
}
