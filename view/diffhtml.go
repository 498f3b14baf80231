package view

import (
	"io"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// diffData is the diff page's data: the report as diff writes it as JSON, and per
// direction the alignment, each step naming a frame of each session (an index into
// that session's frames, -1 for none) and the aligned pair's changes.
type diffData struct {
	Report *diff.Report `json:"report"`
	Lanes  []diffLane   `json:"lanes"`
}

type diffLane struct {
	Dir   string     `json:"dir"`
	Steps []diffStep `json:"steps"`
}

type diffStep struct {
	Old     int           `json:"o"`
	New     int           `json:"n"`
	Changes []diff.Change `json:"c,omitempty"`
	Moved   int64         `json:"mv,omitempty"` // seq of the equal message elsewhere in the other session
}

// WriteDiffHTML writes the comparison of two recordings as one self-contained page:
// both sessions side by side per direction, aligned as diff aligns them, each step
// marked same, changed (with its changes), added, removed or moved, with diff's report on
// top. oldS and newS are the recordings loaded by diff.Load, r their diff.Compare.
// Secret-shaped values are masked (see Page to reveal them).
func WriteDiffHTML(w io.Writer, oldRec, newRec *recorder.Recording, oldS, newS *diff.Session, r *diff.Report) error {
	return Page{}.WriteDiffHTML(w, oldRec, newRec, oldS, newS, r)
}

func diffPage(oldRec, newRec *recorder.Recording, oldS, newS *diff.Session, r *diff.Report) pageData {
	oldData, newData := buildSession(oldRec), buildSession(newRec)
	index := func(s sessionData) map[int64]int {
		m := make(map[int64]int, len(s.Frames))
		for i, f := range s.Frames {
			if f.Dir != "" {
				m[f.Seq] = i
			}
		}
		return m
	}
	oi, ni := index(oldData), index(newData)
	at := func(m map[int64]int, msg *diff.Message) int {
		if msg == nil {
			return -1
		}
		if i, ok := m[msg.Seq]; ok {
			return i
		}
		return -1
	}
	d := &diffData{Report: r}
	for _, dir := range []wire.Direction{wire.ClientToServer, wire.ServerToClient} {
		lane := diffLane{Dir: dir.String(), Steps: []diffStep{}}
		for _, st := range diff.Align(oldS, newS, dir) {
			s := diffStep{Old: at(oi, st.Old), New: at(ni, st.New), Changes: st.Changes}
			if st.Moved != nil {
				s.Moved = st.Moved.Seq
			}
			lane.Steps = append(lane.Steps, s)
		}
		d.Lanes = append(d.Lanes, lane)
	}
	return pageData{Mode: "diff", Title: "codexrec diff " + oldRec.Name + " " + newRec.Name,
		Sessions: []sessionData{oldData, newData}, Diff: d}
}
