package replay

import (
	"bytes"
	"fmt"

	"github.com/codexrec/codexrec/wire"
)

// receive handles one line from the client.
func (s *session) receive(line []byte) error {
	s.lines++
	msg := wire.Classify(line)
	got := Message{Msg: msg, Line: line}
	switch msg.Kind {
	case wire.KindResponse, wire.KindError:
		j, ok := s.sentReq[msg.ID]
		if !ok {
			return s.mismatch(got, fmt.Sprintf("%s answers id %s, which the replay never sent as a request (or which was answered already)",
				msg.Kind, msg.ID))
		}
		got.Msg.Method = s.sc.Server[j].Msg.Method
	case wire.KindRequest:
		if s.overloaded(msg) {
			return s.write(errorResponse(msg.ID, OverloadedCode, OverloadedMessage))
		}
	}
	j := s.find(got)
	if j < 0 {
		// A frame recorded later that got matches is its own answer, not a repeat
		// of an earlier one: hold it for its turn first.
		if msg.Kind == wire.KindRequest && s.hold(got) {
			return nil
		}
		if ok, err := s.repeat(got); ok || err != nil {
			return err
		}
		return s.mismatch(got, "")
	}
	s.accept(j, got)
	s.retryHeld()
	return nil
}

// overloaded reports whether a fault rule answers this request with -32001.
func (s *session) overloaded(msg wire.Message) bool {
	hit := false
	for _, f := range s.srv.Faults {
		if f.Kind == FaultOverloaded && f.Method == msg.Method {
			hit = true
		}
	}
	if !hit {
		return false
	}
	s.overload[msg.Method]++
	n := s.overload[msg.Method]
	for _, f := range s.srv.Faults {
		if f.Kind == FaultOverloaded && f.Method == msg.Method && f.N == n {
			return true
		}
	}
	return false
}

// find returns the expected client frame got matches, or -1. In order, only the next
// expected frame may match; unordered, the earliest one that matches exactly is
// preferred, then the earliest the matcher accepts.
func (s *session) find(got Message) int {
	cs := s.sc.Client
	if !s.srv.Unordered {
		if j := s.findFloating(got); j >= 0 {
			return j
		}
		return s.findOrdered(got)
	}
	for pass := 0; pass < 2; pass++ {
		for j := s.lo; j < len(cs); j++ {
			if s.done(j) {
				continue
			}
			want := message(&cs[j])
			if pass == 0 && MatchStrict(got, want) && s.match(got, want) {
				return j
			}
			if pass == 1 && s.match(got, want) {
				return j
			}
		}
	}
	return s.findSkipped(got)
}

func message(cf *ClientFrame) Message { return Message{Msg: cf.Msg, Line: cf.Line} }

// accept marks expected frame j as received from the live message got.
func (s *session) accept(j int, got Message) {
	cf := &s.sc.Client[j]
	if !s.srv.Unordered && j > s.lo && cf.Msg.Kind == wire.KindRequest {
		for i := s.lo; i < j; i++ {
			if !s.done(i) && !s.skippable(i) && !s.floats(i) {
				if s.early == nil {
					s.early = make([]bool, len(s.sc.Client))
				}
				s.early[j] = true
				break
			}
		}
	}
	s.skipBefore(j)
	s.matched[j] = true
	if s.respQ != nil && s.respQ[j] != nil {
		s.queues = append(s.queues, s.respQ[j])
		s.respQ[j] = nil
	}
	s.liveID[j] = got.Msg.ID
	// Skipped frames may belong to other keys than j's.
	s.advance()
	if got.Msg.Kind == wire.KindResponse || got.Msg.Kind == wire.KindError {
		delete(s.sentReq, got.Msg.ID)
	}
	if !bytes.Equal(wire.Content(got.Line), wire.Content(cf.Line)) {
		s.learnEcho(message(cf), got)
	}
}
