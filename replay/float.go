package replay

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/codexrec/codexrec/wire"
)

// A rich client (the official TUI) sends, around its first turn, requests that
// belong to no thread: thread/list, skills/list, plugin/installed, model/list,
// config/read... Their order, and their number, change from run to run. Unless
// Server.Strict, such a request "floats":
//
//   - it matches the first unreceived recorded request it matches, wherever that
//     sits (an exact match first, then what the match mode accepts);
//   - its response is sent as soon as it has come, never held back by what the
//     client has not sent yet, and never holding back anything else;
//   - once the client has sent something recorded after it, a floating request not
//     received yet is skipped: the server frames that waited for it go out, and it
//     still matches should it come later; one the client never sends is listed at
//     the end, not an error;
//   - a floating request that matches no unreceived one, but matches one received
//     already, is answered with that one's recorded response again (a client that
//     asks once more than recorded), and listed at the end.
//
// A request belongs to no thread when it names none and is not answered with one
// (thread/start belongs to the thread it creates). A request of a thread that comes
// before its turn is held instead (hold.go).

// initFloat marks the floating requests and their responses.
func (s *session) initFloat() {
	if s.srv.Strict {
		return
	}
	keys := s.sc.clientThreads()
	for i := range s.sc.Client {
		if s.sc.Client[i].Msg.Kind == wire.KindRequest && keys[i].key == "" {
			if s.floating == nil {
				s.floating = make([]bool, len(s.sc.Client))
				s.respOf = make([]int, len(s.sc.Client))
				for j := range s.respOf {
					s.respOf[j] = -1
				}
			}
			s.floating[i] = true
			s.floatList = append(s.floatList, i)
		}
	}
	if s.floating == nil {
		return
	}
	for i := range s.sc.Server {
		if a := s.sc.Server[i].Answers; a >= 0 && s.floating[a] {
			s.respOf[a] = i
		}
	}
}

// floats reports whether expected client frame i is a floating request.
func (s *session) floats(i int) bool { return s.floating != nil && s.floating[i] }

// floatResponse reports whether server frame i answers a floating request.
func (s *session) floatResponse(i int) bool {
	a := s.sc.Server[i].Answers
	return a >= 0 && s.floats(a)
}

// findFloating returns the unreceived floating request got matches (exactly first),
// or -1; in recorded order, a skipped one too.
func (s *session) findFloating(got Message) int {
	if s.floating == nil || got.Msg.Kind != wire.KindRequest {
		return -1
	}
	cs := s.sc.Client
	for s.floatLo < len(s.floatList) && s.matched[s.floatList[s.floatLo]] {
		s.floatLo++
	}
	for pass := 0; pass < 2; pass++ {
		for _, j := range s.floatList[s.floatLo:] {
			if s.matched[j] {
				continue
			}
			want := message(&cs[j])
			if (pass == 1 || MatchStrict(got, want)) && s.match(got, want) {
				return j
			}
		}
	}
	return -1
}

// skipFloatingBefore skips the unreceived floating requests recorded before
// expected frame j, which the live client went past.
func (s *session) skipFloatingBefore(j int) {
	if s.floating == nil {
		return
	}
	for i := s.lo; i < j; i++ {
		if s.floating[i] && !s.done(i) {
			s.skip(i)
		}
	}
}

// skip marks expected client frame i as passed over.
func (s *session) skip(i int) {
	if s.skipped == nil {
		s.skipped = make([]bool, len(s.sc.Client))
	}
	s.skipped[i] = true
}

// advance moves lo (and, unordered, each thread's count) past frames that are done.
func (s *session) advance() {
	for s.lo < len(s.matched) && s.done(s.lo) {
		s.lo++
	}
	if s.srv.Unordered {
		for k, list := range s.keyList {
			for s.keyDone[k] < len(list) && s.done(list[s.keyDone[k]]) {
				s.keyDone[k]++
			}
		}
	}
}

// reportFloating lists on Log the floating requests that never came and those that
// came more often than recorded.
func (s *session) reportFloating() {
	if s.srv.Log == nil || s.floating == nil {
		return
	}
	var never []*ClientFrame
	for i, f := range s.floating {
		if f && !s.matched[i] {
			never = append(never, &s.sc.Client[i])
		}
	}
	var b strings.Builder
	if len(never) > 0 {
		fmt.Fprintf(&b, "replay: %d recorded request(s) outside any thread never came and were skipped (%s refuses this):\n", len(never), s.option(OptionStrict))
		for i, cf := range never {
			if i == maxDiffLines {
				fmt.Fprintf(&b, "  ... and %d more\n", len(never)-i)
				break
			}
			fmt.Fprintf(&b, "  seq %d %s\n", cf.Seq, describe(cf.Msg))
		}
	}
	counts := map[string]int{}
	for _, r := range s.repeats {
		if r.Floating {
			counts[r.Method]++
		}
	}
	if len(counts) > 0 {
		n := 0
		for _, c := range counts {
			n += c
		}
		fmt.Fprintf(&b, "replay: %d request(s) outside any thread came more often than recorded and got the recorded answer again (%s refuses this):\n", n, s.option(OptionStrict))
		for _, k := range slices.Sorted(maps.Keys(counts)) {
			fmt.Fprintf(&b, "  request %s x%d\n", k, counts[k])
		}
	}
	s.srv.Log.Write([]byte(b.String()))
}
