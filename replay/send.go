package replay

import (
	"fmt"
	"time"

	"github.com/codexrec/codexrec/wire"
)

// pump sends every server frame that is ready and due, in recorded order within
// each queue and, across queues, lowest index first.
func (s *session) pump() error {
	now := time.Now()
	s.nextDue = time.Time{}
	for !s.ended {
		var best *queue
		bestIdx := -1
		for _, q := range s.queues {
			if q.head >= len(q.items) {
				continue
			}
			i := q.items[q.head]
			if !s.ready(i) {
				continue
			}
			if s.timed && !s.rush {
				if d := s.dueTime(q, i, now); d.After(now) {
					if s.nextDue.IsZero() || d.Before(s.nextDue) {
						s.nextDue = d
					}
					continue
				}
			}
			if bestIdx < 0 || i < bestIdx {
				best, bestIdx = q, i
			}
		}
		if best == nil {
			break
		}
		if len(best.items) == 1 {
			s.drained++
		}
		best.head++
		best.lastTime = s.sc.Server[bestIdx].Time
		if err := s.emit(bestIdx); err != nil {
			return err
		}
	}
	if s.drained > 32 {
		// Drop the responses' queues that are done, so that a long session does not
		// scan them all for every frame.
		s.drained = 0
		live := s.queues[:0]
		for _, q := range s.queues {
			if q.head < len(q.items) || len(q.items) != 1 {
				live = append(live, q)
			}
		}
		clear(s.queues[len(live):])
		s.queues = live
	}
	return s.flush()
}

// ready reports whether every client frame server frame i waits for has come: the
// request it answers, if any, and what blockedOn names.
func (s *session) ready(i int) bool {
	if s.forced != nil && s.forced[i] {
		return true
	}
	a := s.sc.Server[i].Answers
	if a >= 0 && !s.matched[a] {
		return false
	}
	if a >= 0 && (s.floats(a) || (s.early != nil && s.early[a])) {
		return true // float.go, skip.go
	}
	return s.blockedOn(i) < 0
}

// blockedOn is the first client frame server frame i waits for that has not come
// (unordered: of its own thread, then of none), or -1. The request a response
// answers is ready's to check: unordered, it is not among these.
func (s *session) blockedOn(i int) int {
	if !s.srv.Unordered {
		if s.lo < s.sc.Server[i].After {
			return s.lo
		}
		return -1
	}
	k := &s.ix.server[i]
	if d := s.keyDone[k.key]; d < k.afterKey {
		return s.keyList[k.key][d]
	}
	if d := s.keyDone[""]; d < k.afterGlobal {
		return s.keyList[""][d]
	}
	return -1
}

// dueTime fixes, the first time frame i is ready at the head of its queue, when it
// may be sent: the recorded gap since what it followed, scaled, plus any delay.
func (s *session) dueTime(q *queue, i int, now time.Time) time.Time {
	if !s.due[i].IsZero() {
		return s.due[i]
	}
	f := &s.sc.Server[i]
	var d time.Duration
	if s.srv.Speed > 0 {
		ref := q.lastTime
		if f.After > 0 {
			ref = max(ref, s.sc.Client[f.After-1].Time)
		}
		if gap := f.Time - ref; gap > 0 {
			d = time.Duration(float64(gap) / s.srv.Speed)
		}
	}
	if p := s.plans[i]; p != nil {
		d += p.delay
	}
	s.due[i] = now.Add(d)
	return s.due[i]
}

// emit writes server frame i, applying its fault plan.
func (s *session) emit(i int) error {
	f := &s.sc.Server[i]
	if f.Dir == wire.Stderr {
		if s.srv.Stderr != nil {
			if _, err := s.srv.Stderr.Write(f.Line); err != nil {
				return fmt.Errorf("replay %s: writing stderr: %w", s.sc.Name, err)
			}
		}
		return nil
	}
	p := s.plans[i]
	if p != nil && p.skip {
		return nil
	}
	if p != nil && p.before >= 0 {
		if err := s.write(s.render(p.before)); err != nil {
			return err
		}
	}
	b := s.render(i)
	if f.Msg.Kind == wire.KindRequest {
		s.sentReq[f.Msg.ID] = i
	}
	if p != nil && p.reorder {
		s.held = append(s.held, b)
		return nil
	}
	if err := s.write(b); err != nil {
		return err
	}
	if p != nil && p.duplicate {
		if err := s.write(b); err != nil {
			return err
		}
	}
	for _, h := range s.held {
		if err := s.write(h); err != nil {
			return err
		}
	}
	s.held = s.held[:0]
	if p != nil && p.eof {
		s.ended = true
	}
	return nil
}

// write sends one line to the client, after the garbage line if a rule asks for one.
func (s *session) write(b []byte) error {
	if s.gone {
		return nil
	}
	if !s.wrote {
		s.wrote = true
		for _, f := range s.srv.Faults {
			if f.Kind == FaultGarbage {
				if _, err := s.out.WriteString(f.Text + "\n"); err != nil {
					return s.writeErr(err)
				}
			}
		}
	}
	if _, err := s.out.Write(b); err != nil {
		return s.writeErr(err)
	}
	return nil
}
