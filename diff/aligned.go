package diff

import "codexrec/internal/wire"

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
	a, b := old.Messages(d), new.Messages(d)
	keys := map[string]int32{}
	intern := func(ms []Message) []int32 {
		out := make([]int32, len(ms))
		for i := range ms {
			k := ms[i].key()
			id, ok := keys[k]
			if !ok {
				id = int32(len(keys))
				keys[k] = id
			}
			out[i] = id
		}
		return out
	}
	var steps []Step
	var fc []fieldChange
	pairs := align(intern(a), intern(b))
	moved := findMoves(pairs, a, b)
	for _, p := range pairs {
		switch {
		case p.old < 0:
			s := Step{New: &b[p.new]}
			if i, ok := moved.to[p.new]; ok {
				s.Moved = &a[i]
			}
			steps = append(steps, s)
		case p.new < 0:
			s := Step{Old: &a[p.old]}
			if j, ok := moved.from[p.old]; ok {
				s.Moved = &b[j]
			}
			steps = append(steps, s)
		default:
			s := Step{Old: &a[p.old], New: &b[p.new]}
			fc = compareValues(fc[:0], "", s.Old.Value, s.New.Value)
			for _, c := range fc {
				ch := Change{Change: c.kind, Pointer: c.pointer, Count: 1, OldSeq: s.Old.Seq, NewSeq: s.New.Seq}
				if c.kind != Added {
					ch.Old = render(c.old, valueMax)
				}
				if c.kind != Removed {
					ch.New = render(c.new, valueMax)
				}
				s.Changes = append(s.Changes, ch)
			}
			steps = append(steps, s)
		}
	}
	return steps
}
