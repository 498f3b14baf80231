package replay

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/codexrec/codexrec/wire"
)

// maxCandidates bounds how far ahead a mismatch looks for the nearest expected frame.
const maxCandidates = 4096

// A mismatch is reported in one block that says what the replay waits for, what
// came, how it differs (only what the match mode does not accept) and which flag
// would accept it. Nothing after it contradicts it: the frame it was compared with
// is listed at the end as contested, not as a frame that never came.

// mismatch reports a client message that matched nothing: a diagnostic on Log, the
// hook, and for a request a JSON-RPC error shaped like the app-server's.
func (s *session) mismatch(got Message, reason string) error {
	cs := s.sc.Client
	m := &Mismatch{Line: s.lines, Got: bytes.Clone(wire.Content(got.Line)), Msg: got.Msg}
	if s.lo < len(cs) {
		m.Expected = &cs[s.lo]
	}
	if reason == "" {
		if j := s.laterMatch(got); j >= 0 {
			m.Later = &cs[j]
		} else if n := s.nearest(got); n >= 0 {
			m.Nearest = &cs[n]
			if MatchMethod(got, message(m.Nearest)) {
				m.Diff = bodyDiff(s.ruled(message(m.Nearest)), s.ruled(got), s.normalizes())
			}
		}
		reason = s.reason(got, m)
	}
	m.Reason = reason
	if s.srv.Handoff {
		if s.handoff == nil {
			h := &HandoffError{Mismatch: m}
			for _, held := range s.holding {
				h.Held = append(h.Held, held.line)
			}
			s.handoff = h
		}
		return s.handoff
	}
	m.Accept = s.accepting(got, m)
	for _, cf := range []*ClientFrame{m.Later, m.Nearest, m.Expected} {
		if cf != nil {
			if s.contested == nil {
				s.contested = map[int64]contest{}
			}
			if _, ok := s.contested[cf.Seq]; !ok {
				s.contested[cf.Seq] = contest{line: m.Line, early: cf == m.Later}
			}
			break
		}
	}
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

// contest is what a mismatch said about an expected frame: the client line that
// was compared with it, and whether that line was it, sent ahead of its turn.
type contest struct {
	line  int
	early bool
}

func (c contest) String() string {
	if c.early {
		return "sent it ahead of its turn"
	}
	return "did not match it"
}

// normalizes reports whether the match mode compares bodies after normalisation.
func (s *session) normalizes() bool {
	return s.srv.Matcher != nil || s.srv.Mode == ModeParams
}

// laterMatch is, in recorded order, an expected frame after the one the replay waits
// for that got matches (the client sent it early), or -1.
func (s *session) laterMatch(got Message) int {
	if s.srv.Unordered {
		return -1 // find tried every expected frame already
	}
	cs := s.sc.Client
	for j, seen := s.lo+1, 0; j < len(cs) && seen < maxCandidates; j, seen = j+1, seen+1 {
		if !s.done(j) && s.match(got, message(&cs[j])) {
			return j
		}
	}
	return -1
}

// nearest picks the expected frame to compare a mismatch with: the first unreceived
// frame of the same kind and method (in order, only that one could ever match;
// unordered, the one with the fewest differences), otherwise none.
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
		if !s.srv.Unordered {
			return j
		}
		n := len(bodyDiff(message(&cs[j]), got, s.normalizes()))
		if best < 0 || n < bestN {
			best, bestN = j, n
		}
	}
	return best
}

// reason says in one line why nothing matched.
func (s *session) reason(got Message, m *Mismatch) string {
	g := describe(got.Msg)
	switch {
	case m.Expected == nil:
		return fmt.Sprintf("got %s, but the recording expects no more client messages", g)
	case m.Later != nil:
		return fmt.Sprintf("got %s, recorded later (seq %d); the recording waits for %s (seq %d) first",
			g, m.Later.Seq, describe(m.Expected.Msg), m.Expected.Seq)
	case m.Nearest != nil && MatchMethod(got, message(m.Nearest)):
		return fmt.Sprintf("%s differs from the recorded one (seq %d, match mode %s)", g, m.Nearest.Seq, s.modeName())
	case s.srv.Unordered:
		return fmt.Sprintf("got %s, which is not among the expected messages (next expected: %s, seq %d)",
			g, describe(m.Expected.Msg), m.Expected.Seq)
	}
	return fmt.Sprintf("got %s; the recording waits for %s (seq %d)", g, describe(m.Expected.Msg), m.Expected.Seq)
}

func (s *session) modeName() string {
	if s.srv.Matcher != nil {
		return "custom"
	}
	return s.srv.Mode.String()
}

// The settings a diagnosis may name (see Server.OptionName).
const (
	OptionNotStrict   = "Strict: false"
	OptionUnordered   = "Unordered: true"
	OptionMatchParams = "Mode: ModeParams"
	OptionMatchMethod = "Mode: ModeMethod"
	OptionStrict      = "Strict: true"
	OptionNoRepeats   = "NoRepeats: true"
	OptionRepeats     = "NoRepeats: false"
	// OptionIdempotent and OptionRule are prefixes: a method, or a rule's kind and
	// text, follows.
	OptionIdempotent = "Idempotent: "
	OptionRule       = "Rules: "
)

func (s *session) option(o string) string {
	if s.srv.OptionName != nil {
		return s.srv.OptionName(o)
	}
	return o
}

// accepting lists the settings that would have accepted got, each with what it does.
func (s *session) accepting(got Message, m *Mismatch) []string {
	var out []string
	if s.srv.Strict && !s.srv.Unordered && m.Expected != nil {
		for j := s.lo; j < len(s.sc.Client); j++ {
			if s.done(j) {
				continue
			}
			if s.match(got, message(&s.sc.Client[j])) {
				if j > s.lo {
					out = append(out, s.option(OptionNotStrict)+" (a recorded notification the client never sends is skipped)")
				}
				break
			}
			if s.sc.Client[j].Msg.Kind != wire.KindNotification {
				break
			}
		}
	}
	if m.Later != nil {
		out = append(out, s.option(OptionUnordered)+" (client messages may come in another order than recorded)")
	}
	if n := m.Nearest; n != nil && s.srv.Matcher == nil && MatchMethod(got, message(n)) {
		switch {
		case s.srv.Mode == ModeStrict && MatchParams(got, message(n)):
			out = append(out, s.option(OptionMatchParams)+" (ids, times, paths and the client's identity may differ)")
		case s.srv.Mode != ModeMethod:
			out = append(out, s.option(OptionMatchMethod)+" (compares kind and method only)")
		}
	}
	if n := m.Nearest; n != nil && MatchMethod(got, message(n)) {
		if r := s.ruleSuggestion(got, message(n), m.Diff); r != "" {
			out = append(out, r)
		}
	}
	if r := s.repeatSuggestion(got); r != "" {
		out = append(out, r)
	}
	return out
}

// diagnose writes a mismatch to Log, secrets masked.
func (s *session) diagnose(m *Mismatch) {
	if s.srv.Log == nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "replay: client line %d matched nothing: %s\n", m.Line, m.Reason)
	if m.Expected != nil {
		fmt.Fprintf(&b, "  waiting for: seq %d %s\n", m.Expected.Seq, describe(m.Expected.Msg))
	}
	fmt.Fprintf(&b, "  live:        %s\n", short(mask(m.Got)))
	switch {
	case m.Later != nil:
		fmt.Fprintf(&b, "  matches:     seq %d %s, recorded after the one waited for\n", m.Later.Seq, describe(m.Later.Msg))
	case m.Nearest != nil:
		fmt.Fprintf(&b, "  recorded:    %s (seq %d)\n", short(mask(m.Nearest.Line)), m.Nearest.Seq)
	case m.Expected != nil:
		fmt.Fprintf(&b, "  recorded:    %s (seq %d)\n", short(mask(m.Expected.Line)), m.Expected.Seq)
	}
	if len(m.Diff) > 0 {
		how := "after normalisation"
		if !s.normalizes() {
			how = "as JSON"
		}
		fmt.Fprintf(&b, "  differs %s (JSON pointer: live, recorded):\n", how)
		for _, d := range m.Diff {
			fmt.Fprintf(&b, "    %s\n", d)
		}
	}
	if len(m.Accept) > 0 {
		fmt.Fprintf(&b, "  accepted by: %s\n", strings.Join(m.Accept, "; or "))
	} else if m.Expected != nil {
		fmt.Fprintf(&b, "  accepted by: no setting: the recording holds no such message here; record the session again with this client\n")
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
		if c, ok := s.contested[cf.Seq]; ok {
			fmt.Fprintf(&b, "  seq %d %s (client line %d, above, %s)\n", cf.Seq, describe(cf.Msg), c.line, c)
			continue
		}
		fmt.Fprintf(&b, "  seq %d %s: %s\n", cf.Seq, describe(cf.Msg), short(mask(cf.Line)))
	}
	s.srv.Log.Write([]byte(b.String()))
}
