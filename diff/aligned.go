package diff

import (
	"github.com/codexrec/codexrec/internal/normalize"
	"github.com/codexrec/codexrec/wire"
)

// Step is one step of the alignment Compare makes in a direction: a message of each
// session, aligned (Changes lists their differences; none when they are equal after
// normalisation), or a message of one session only (the other side is nil: the
// message was added or removed, or moved when Moved is set).
type Step struct {
	Old, New *Message
	Changes  []Change // each with Count 1 and both seqs
	// Moved is, for a message of one session only, the equal message at another place
	// in the other session (Compare's message-moved), or nil.
	Moved *Message
}

// Align returns the alignment of old's and new's messages in direction d that Compare
// reports on, step by step, for views that show the two sessions side by side.
func Align(old, new *Session, d wire.Direction) []Step {
	var steps []Step
	eachStep(old.Messages(d), new.Messages(d), func(s *Step) {
		st := *s
		if len(s.Changes) > 0 {
			st.Changes = append([]Change(nil), s.Changes...)
		}
		steps = append(steps, st)
	})
	return steps
}

// eachStep aligns one direction's messages a (OLD) and b (NEW) and calls visit for
// every step in order. Align and Compare both walk this one alignment, so the side by
// side view and the report cannot disagree. The step and its Changes are scratch,
// valid only during the call.
func eachStep(a, b []Message, visit func(*Step)) {
	keys := map[string]int32{}
	intern := func(ms []Message) []int32 {
		out := make([]int32, len(ms))
		for i := range ms {
			k := ms[i].Key
			id, ok := keys[k]
			if !ok {
				id = int32(len(keys))
				keys[k] = id
			}
			out[i] = id
		}
		return out
	}
	var (
		s  Step
		ch changer
	)
	ka, kb := intern(a), intern(b)
	pairs := uncross(align(ka, kb), ka, kb, func(i, j int) bool { return normalize.Equal(a[i].Value, b[j].Value) })
	moved := findMoves(pairs, a, b)
	for _, p := range pairs {
		s = Step{}
		switch {
		case p.old < 0:
			s.New = &b[p.new]
			if i, ok := moved.to[p.new]; ok {
				s.Moved = &a[i]
			}
		case p.new < 0:
			s.Old = &a[p.old]
			if j, ok := moved.from[p.old]; ok {
				s.Moved = &b[j]
			}
		default:
			s.Old, s.New = &a[p.old], &b[p.new]
			s.Changes = ch.changes(s.Old, s.New)
		}
		visit(&s)
	}
}

// changer lists the differences of aligned messages, reusing its buffers: the
// changes it returns are valid until its next call.
type changer struct {
	fc   []fieldChange
	out  []Change
	path []byte
}

func (c *changer) changes(old, new *Message) []Change {
	c.fc = compareAt(c.fc[:0], &c.path, old.Value, new.Value)
	c.out = c.out[:0]
	for _, f := range c.fc {
		ch := Change{Change: f.kind, Pointer: f.pointer, Count: 1, OldSeq: old.Seq, NewSeq: new.Seq}
		if f.kind != Added {
			ch.Old = render(f.old, valueMax)
		}
		if f.kind != Removed {
			ch.New = render(f.new, valueMax)
		}
		c.out = append(c.out, ch)
	}
	return c.out
}
