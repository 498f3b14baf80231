package replay

import (
	"fmt"
	"time"
)

// A client that runs several tasks at once (the TUI) sends some requests in another
// order from run to run: a thread/read recorded after turn/start may come before it.
// Answering it at once would serve a state the thread is not in yet (the recorded
// answer describes the turn under way). So in order, unless Server.Strict, a request
// that matches only a frame recorded later is held: it is matched, in its turn, once
// the frames before it have come, or, when the client sends nothing for Patience
// (it waits for that answer), it is matched out of order then and answered. At the
// client's EOF, held requests are matched out of order.

// held is a live request waiting for its turn.
type heldMsg struct {
	got  Message
	line int // its position in the client's stream
}

// hold keeps got for later when, in order, it matches a frame recorded after the
// one the replay waits for; it reports whether it did.
func (s *session) hold(got Message) bool {
	if s.srv.Unordered || s.srv.Strict || s.srv.FailFast || s.patience() <= 0 {
		return false
	}
	j := s.laterMatch(got)
	if j < 0 {
		return false
	}
	for i := s.lo; i < j; i++ {
		if _, ok := s.contested[s.sc.Client[i].Seq]; ok && !s.done(i) {
			return false // the client sent something else in its place: it will not come
		}
	}
	s.holding = append(s.holding, heldMsg{got, s.lines})
	return true
}

// retryHeld matches the held requests whose turn has come, oldest first.
func (s *session) retryHeld() {
	for progress := true; progress && len(s.holding) > 0; {
		progress = false
		for k := 0; k < len(s.holding); k++ {
			h := s.holding[k]
			if j := s.find(h.got); j >= 0 {
				s.holding = append(s.holding[:k], s.holding[k+1:]...)
				s.accept(j, h.got)
				progress = true
				break
			}
		}
	}
}

// releaseHeld matches the oldest held request out of order (patience, EOF) and says
// so on Log; it reports whether there was one.
func (s *session) releaseHeld(why string) bool {
	if len(s.holding) == 0 {
		return false
	}
	h := s.holding[0]
	s.holding = s.holding[1:]
	j := s.laterMatch(h.got)
	if j < 0 {
		// What made it match later has been matched since by another message.
		if j = s.find(h.got); j < 0 {
			s.lines, h.line = h.line, s.lines
			s.mismatch(h.got, "")
			s.lines = h.line
			return true
		}
	}
	if s.srv.Log != nil && why != "" {
		cf := &s.sc.Client[j]
		fmt.Fprintf(s.srv.Log, "replay: %s (client line %d) matched seq %d out of order: %s\n", describe(h.got.Msg), h.line, cf.Seq, why)
	}
	if s.early == nil {
		s.early = make([]bool, len(s.sc.Client))
	}
	s.early[j] = true
	s.accept(j, h.got)
	s.retryHeld()
	return true
}

// heldDeadline is when the oldest held request is released, or zero.
func (s *session) heldDeadline() time.Time {
	if len(s.holding) == 0 || s.rush {
		return time.Time{}
	}
	return s.lastInput.Add(s.patience())
}
