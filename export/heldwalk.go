package export

import (
	"github.com/codexrec/codexrec/internal/mask"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/view"
)

// walkHeld is the second pass the streaming exports share: it reads rd's entries
// and calls visit with each frame's message (its index among the frames), masked
// and built as prepare builds it, with its notes, in file order, once its last
// note has been read. notes and lastNote are the first pass's: each finding or
// redaction's frame (-1: none) in file order, and each frame's last note. amend,
// when set, completes a message as it is built (what a format knows from its first
// pass).
func walkHeld(rd *recorder.Reader, m *mask.Masker, notes []int, lastNote map[int]int,
	amend func(i int, e *recorder.Entry, msg *message), visit func(i int, msg *message) error) error {
	type held struct {
		frame int
		msg   *message
	}
	var (
		b      view.Builder
		queue  []held               // messages not visited yet, in file order
		byIdx  = map[int]*message{} // queue's messages waiting for a note
		frames int
		read   int // findings and redactions read
	)
	flush := func() error {
		n := 0
		for ; n < len(queue); n++ {
			h := queue[n]
			if last, ok := lastNote[h.frame]; ok && last >= read {
				break
			}
			delete(byIdx, h.frame)
			if err := visit(h.frame, h.msg); err != nil {
				return err
			}
		}
		if n > 0 {
			clear(queue[:n])
			queue = append(queue[:0], queue[n:]...)
		}
		return nil
	}
	for e, err := range rd.Entries() {
		if err != nil {
			return err
		}
		switch e.Type {
		case recorder.TypeFrame:
			i := frames
			frames++
			c := m.Frame(&e)
			masked := e
			masked.Line = append(c[:len(c):len(c)], '\n')
			msg := &message{row: b.Frame(&masked), content: c}
			if amend != nil {
				amend(i, &e, msg)
			}
			queue = append(queue, held{i, msg})
			if _, ok := lastNote[i]; ok {
				byIdx[i] = msg
			}
		case recorder.TypeFinding, recorder.TypeRedaction:
			if read < len(notes) {
				if msg := byIdx[notes[read]]; msg != nil {
					n := view.NoteOf(&e)
					n.Reason, n.Detail = m.Text(n.Reason), m.Text(n.Detail)
					msg.notes = append(msg.notes, n)
				}
			}
			read++
		case recorder.TypeSegment:
			b.Segment(e.Segment)
		}
		if err := flush(); err != nil {
			return err
		}
	}
	read = len(notes) + 1 // whatever this pass read, nothing more comes
	return flush()
}
