package replay

import (
	"fmt"
	"strings"

	"github.com/codexrec/codexrec/wire"
)

// A recorded client notification the live client never sends (initialized, which
// some clients leave out and the app-server does not require) must not hold the
// session up. Unless Server.Strict, a live message may match the first frame after
// a run of expected notifications; the notifications passed over are skipped: the
// server frames that waited for them are released, and they are listed at the end
// as skipped, not as a mismatch or an unused frame. Should the client send one
// later after all, it still matches.

// done reports whether expected client frame i needs nothing more: received or
// skipped.
func (s *session) done(i int) bool {
	return s.matched[i] || (s.skipped != nil && s.skipped[i])
}

// skippable reports whether expected client frame i may be passed over.
func (s *session) skippable(i int) bool {
	return !s.srv.Strict && s.sc.Client[i].Msg.Kind == wire.KindNotification
}

// findOrdered is find in recorded order: the next expected frame, or one after a run
// of skippable notifications, or a notification skipped earlier.
func (s *session) findOrdered(got Message) int {
	cs := s.sc.Client
	live := "-"
	for j := s.lo; j < len(cs); j++ {
		if s.done(j) {
			continue
		}
		if s.match(got, message(&cs[j])) {
			return j
		}
		if s.skippable(j) || s.floats(j) {
			continue
		}
		if live == "-" {
			live = s.liveThread(got)
		}
		if !s.otherThread(live, j) {
			break
		}
	}
	return s.findSkipped(got)
}

// liveThread is the thread a live request names ("" when none, as thread/start), or
// "-" for any other message: only requests pass frames of other threads.
func (s *session) liveThread(got Message) string {
	if s.srv.Strict || got.Msg.Kind != wire.KindRequest {
		return "-"
	}
	return threadKey(got.Line)
}

// otherThread reports whether expected frame j is a request of another thread than
// live: unless Strict, a request may pass the requests of other threads, since a
// client that runs threads side by side (the TUI's title thread) orders them
// differently from run to run. Server frames still wait for what was recorded
// before them (and patience releases them).
func (s *session) otherThread(live string, j int) bool {
	if live == "-" || s.sc.Client[j].Msg.Kind != wire.KindRequest {
		return false
	}
	k := s.sc.clientThreads()[j].key
	return k != "" && k != live
}

// findSkipped returns a skipped notification got matches, or -1.
func (s *session) findSkipped(got Message) int {
	if s.skipped == nil || got.Msg.Kind != wire.KindNotification {
		return -1
	}
	for j, sk := range s.skipped {
		if sk && s.match(got, message(&s.sc.Client[j])) {
			return j
		}
	}
	return -1
}

// skipBefore skips the run of unreceived notifications just before expected frame
// j, which the live client went past, and unless j is itself a request outside any
// thread (whose place in the recorded order means nothing), the unreceived such
// requests before j (float.go).
func (s *session) skipBefore(j int) {
	for i := j - 1; i >= s.lo; i-- {
		if s.done(i) || s.floats(i) {
			continue
		}
		if !s.skippable(i) {
			break
		}
		if s.skipped == nil {
			s.skipped = make([]bool, len(s.sc.Client))
		}
		s.skipped[i] = true
	}
	if !s.floats(j) {
		s.skipFloatingBefore(j)
	}
}

// skippedFrames lists the notifications skipped and never received.
func (s *session) skippedFrames() []*ClientFrame {
	var out []*ClientFrame
	for i, sk := range s.skipped {
		if sk && !s.matched[i] && !s.floats(i) {
			out = append(out, &s.sc.Client[i])
		}
	}
	return out
}

// reportSkipped lists on Log the notifications the client never sent.
func (s *session) reportSkipped() {
	frames := s.skippedFrames()
	if s.srv.Log == nil || len(frames) == 0 {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "replay: %d recorded client notification(s) never came and were skipped (%s refuses this):\n", len(frames), s.option("Strict: true"))
	for _, cf := range frames {
		fmt.Fprintf(&b, "  seq %d %s\n", cf.Seq, describe(cf.Msg))
	}
	s.srv.Log.Write([]byte(b.String()))
}
