package replay

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/codexrec/codexrec/wire"
)

// maxCandidates bounds how far ahead a mismatch looks for the nearest expected frame.
const maxCandidates = 4096

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
		return s.mismatch(got, "")
	}
	s.accept(j, got)
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
	s.skipBefore(j)
	s.matched[j] = true
	s.liveID[j] = got.Msg.ID
	for s.lo < len(s.matched) && s.done(s.lo) {
		s.lo++
	}
	if s.srv.Unordered {
		// Skipped notifications may belong to other keys than j's.
		for k, list := range s.keyList {
			for s.keyDone[k] < len(list) && s.done(list[s.keyDone[k]]) {
				s.keyDone[k]++
			}
		}
	}
	if got.Msg.Kind == wire.KindResponse || got.Msg.Kind == wire.KindError {
		delete(s.sentReq, got.Msg.ID)
	}
	if !bytes.Equal(wire.Content(got.Line), wire.Content(cf.Line)) {
		s.learnEcho(message(cf), got)
	}
}

// mismatch reports a client message that matched nothing: a diagnostic on Log, the
// hook, and for a request a JSON-RPC error shaped like the app-server's.
func (s *session) mismatch(got Message, reason string) error {
	m := &Mismatch{Line: s.lines, Got: bytes.Clone(wire.Content(got.Line)), Msg: got.Msg}
	if n := s.nearest(got); n >= 0 {
		m.Nearest = &s.sc.Client[n]
		m.Diff = structuralDiff(m.Nearest.Line, got.Line)
	}
	if reason == "" {
		reason = s.reason(got, m.Nearest)
	}
	m.Reason = reason
	s.mismatches = append(s.mismatches, m)
	s.diagnose(m)
	if s.srv.OnMismatch != nil {
		s.srv.OnMismatch(m)
	}
	if got.Msg.Kind == wire.KindRequest {
		return s.write(errorResponse(got.Msg.ID, -32600, "replay: "+reason))
	}
	return nil
}

// nearest picks the expected frame to compare a mismatch with: among unmatched frames
// of the same kind and method, the one with the fewest differences; otherwise the
// next expected frame.
func (s *session) nearest(got Message) int {
	cs := s.sc.Client
	best, bestN := -1, 0
	for j, seen := s.lo, 0; j < len(cs) && seen < maxCandidates; j++ {
		if s.done(j) {
			continue
		}
		seen++
		if !MatchMethod(got, message(&cs[j])) {
			continue
		}
		n := len(structuralDiff(cs[j].Line, got.Line))
		if best < 0 || n < bestN {
			best, bestN = j, n
		}
		if !s.srv.Unordered {
			break // in order, only the first such frame could ever match
		}
	}
	if best >= 0 {
		return best
	}
	if s.lo < len(cs) {
		return s.lo
	}
	return -1
}

func (s *session) reason(got Message, nearest *ClientFrame) string {
	g := describe(got.Msg)
	switch {
	case nearest == nil:
		return fmt.Sprintf("got %s, but the recording expects no more client messages", g)
	case MatchMethod(got, message(nearest)) && (!s.srv.Unordered && &s.sc.Client[s.lo] == nearest || s.srv.Unordered):
		return fmt.Sprintf("%s differs from the recorded one (seq %d, match mode %s)", g, nearest.Seq, s.modeName())
	case s.srv.Unordered:
		return fmt.Sprintf("got %s, but no such message is expected (next expected: %s, seq %d)", g, describe(nearest.Msg), nearest.Seq)
	}
	return fmt.Sprintf("expected %s (seq %d), got %s", describe(nearest.Msg), nearest.Seq, g)
}

func (s *session) modeName() string {
	if s.srv.Matcher != nil {
		return "custom"
	}
	return s.srv.Mode.String()
}

// diagnose writes a mismatch to Log.
func (s *session) diagnose(m *Mismatch) {
	if s.srv.Log == nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "replay: client line %d matched nothing: %s\n", m.Line, m.Reason)
	fmt.Fprintf(&b, "  got:      %s\n", short(m.Got))
	if m.Nearest != nil {
		fmt.Fprintf(&b, "  expected: %s (seq %d)\n", short(wire.Content(m.Nearest.Line)), m.Nearest.Seq)
		if len(m.Diff) > 0 {
			fmt.Fprintf(&b, "  diff against seq %d (JSON pointer: got, expected):\n", m.Nearest.Seq)
			for _, d := range m.Diff {
				fmt.Fprintf(&b, "    %s\n", d)
			}
		}
	}
	s.srv.Log.Write([]byte(b.String()))
}

// reportUnused lists on Log the expected frames that never came.
func (s *session) reportUnused(unused []*ClientFrame) {
	if s.srv.Log == nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "replay: %d expected client frame(s) never came:\n", len(unused))
	for i, cf := range unused {
		if i == maxDiffLines {
			fmt.Fprintf(&b, "  ... and %d more\n", len(unused)-i)
			break
		}
		fmt.Fprintf(&b, "  seq %d %s: %s\n", cf.Seq, describe(cf.Msg), short(wire.Content(cf.Line)))
	}
	s.srv.Log.Write([]byte(b.String()))
}
