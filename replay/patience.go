package replay

import (
	"fmt"
	"time"

	"github.com/codexrec/codexrec/wire"
)

// DefaultPatience is Server.Patience when it is zero.
const DefaultPatience = 200 * time.Millisecond

// The script sends a server frame once every client frame recorded before it has
// come. The recorded order of the two directions is only the order the proxy read
// them in, though: a fast client's turn/start can be recorded just before the
// thread/started notification the server had already on its way, and a client that
// waits for thread/started before it sends turn/start would then wait forever.
// Patience breaks that deadlock: when the client has sent nothing for Patience while
// the next server frame waits only for a request or notification the client has not
// sent, that frame goes out anyway, one frame per Patience, never a response before
// its request and never ahead of an answer the client owes a server request.
// When what it waits for is a request outside any thread (float.go), that request is
// skipped instead, and everything that waited only for it goes on.

// patience is the session's Patience; zero or less means never.
func (s *session) patience() time.Duration {
	switch p := s.srv.Patience; {
	case p == 0:
		return DefaultPatience
	case p < 0:
		return 0
	default:
		return p
	}
}

// stalled returns the server frame a deadlock would hold back, and the client frame
// it waits for, or -1. Only the lowest blocked frame at the head of a queue counts.
func (s *session) stalled() (server, client int) {
	server, client = -1, -1
	for _, q := range s.queues {
		if q.head >= len(q.items) {
			continue
		}
		i := q.items[q.head]
		if s.ready(i) || (server >= 0 && i > server) {
			continue
		}
		server, client = i, -1
		f := &s.sc.Server[i]
		if f.Answers >= 0 && !s.matched[f.Answers] {
			continue // a response waits for its request
		}
		c := s.blockedOn(i)
		if c < 0 {
			continue
		}
		if k := s.sc.Client[c].Msg.Kind; k == wire.KindRequest || k == wire.KindNotification {
			client = c
		}
	}
	if client < 0 {
		return -1, -1
	}
	return server, client
}

// stallDeadline is when the frame a deadlock holds back will be released, or zero.
func (s *session) stallDeadline() time.Time {
	p := s.patience()
	if p <= 0 || s.rush {
		return time.Time{}
	}
	if i, _ := s.stalled(); i < 0 {
		return time.Time{}
	}
	return s.lastInput.Add(p)
}

// release sends the frame a deadlock holds back, if the client has been silent for
// Patience, and says so on Log.
func (s *session) release(now time.Time) {
	p := s.patience()
	if p <= 0 || now.Before(s.lastInput.Add(p)) {
		return
	}
	i, c := s.stalled()
	if i < 0 {
		return
	}
	s.lastInput = now // the next frame gets its own Patience
	if s.floats(c) {
		// A request outside any thread the client has not sent: it is skipped, and
		// what waited for it goes on (float.go).
		s.skip(c)
		s.advance()
		if s.srv.Log != nil {
			f, cf := &s.sc.Server[i], &s.sc.Client[c]
			fmt.Fprintf(s.srv.Log, "replay: the client sent nothing for %v while %s (seq %d) waited for %s (seq %d), outside any thread; skipped it (patience)\n",
				p, describe(f.Msg), f.Seq, describe(cf.Msg), cf.Seq)
		}
		return
	}
	if s.forced == nil {
		s.forced = make([]bool, len(s.sc.Server))
	}
	s.forced[i] = true
	if s.srv.Log != nil {
		f, cf := &s.sc.Server[i], &s.sc.Client[c]
		what := "a stderr line"
		if f.Dir != wire.Stderr {
			what = describe(f.Msg)
		}
		fmt.Fprintf(s.srv.Log, "replay: the client sent nothing for %v while %s (seq %d) waited for %s (seq %d), recorded before it; sent it anyway (patience)\n",
			p, what, f.Seq, describe(cf.Msg), cf.Seq)
	}
}
