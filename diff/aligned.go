package diff

import "codexrec/internal/wire"

// Step is one step of the alignment Compare makes in a direction: a message of each
// session, aligned (Changes lists their differences; none when they are equal after
// normalisation), or a message of one session only (the other side is nil: the
// message was added or removed).
type Step struct {
	Old, New *Message
	Changes  []Change // each with Count 1 and both seqs
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
	for _, p := range align(intern(a), intern(b)) {
		switch {
		case p.old < 0:
			steps = append(steps, Step{New: &b[p.new]})
		case p.new < 0:
			steps = append(steps, Step{Old: &a[p.old]})
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
