package replay

import (
	"fmt"
	"slices"

	"github.com/codexrec/codexrec/wire"
)

// A client may ask again for what it asked already: a model list at each screen, a
// config read before each turn. A request that matches no expected frame but does
// match one received already is a repeat; when its method is idempotent (it reads,
// it changes nothing) it is answered with the recorded answer to the last such
// frame, the live id spliced in, and reported on Log. Server.NoRepeats refuses
// repeats; Server.Idempotent adds methods to DefaultIdempotent.

// DefaultIdempotent lists the app-server methods answered again when repeated: reads
// and lists, whose answer in a replay is the recorded one however often asked.
var DefaultIdempotent = []string{
	"account/rateLimits/read", "account/read", "app/list", "collaborationMode/list",
	"config/read", "configRequirements/read", "experimentalFeature/list", "hooks/list",
	"mcpServerStatus/list", "model/list", "modelProvider/capabilities/read",
	"permissionProfile/list", "plugin/list", "plugin/read", "remoteControl/status/read",
	"skills/list", "thread/list", "thread/loaded/list", "thread/read",
}

// Repeat is a request answered again from an earlier recorded answer.
type Repeat struct {
	Line   int    // 1-based position of the request in the client's stream
	Method string // its method
	Seq    int64  // seq of the recorded request whose answer was sent
	// Floating is set when the request belongs to no thread: outside Server.Strict
	// such a request is answered again whatever its method (initialize excepted).
	Floating bool
}

func (s *session) idempotent(method string) bool {
	return slices.Contains(DefaultIdempotent, method) || slices.Contains(s.srv.Idempotent, method)
}

// repeated returns the received request got repeats (the last one it matches) and
// the recorded answer to it, or -1, -1.
func (s *session) repeated(got Message) (req, answer int) {
	if got.Msg.Kind != wire.KindRequest {
		return -1, -1
	}
	cs := s.sc.Client
	for j := len(cs) - 1; j >= 0; j-- {
		if !s.matched[j] || cs[j].Msg.Kind != wire.KindRequest || !s.match(got, message(&cs[j])) {
			continue
		}
		for i := range s.sc.Server {
			if s.sc.Server[i].Answers == j {
				return j, i
			}
		}
	}
	return -1, -1
}

// repeat answers got as a repeat when it is one and repeats are allowed: its
// method is idempotent, or (outside Server.Strict) the request it repeats belongs
// to no thread.
func (s *session) repeat(got Message) (bool, error) {
	if s.srv.NoRepeats || got.Msg.Kind != wire.KindRequest {
		return false, nil
	}
	j, i := s.repeated(got)
	if j < 0 {
		return false, nil
	}
	// initialize is the handshake: the app-server refuses a second one, so only an
	// explicit Idempotent entry answers it again.
	idem := s.idempotent(got.Msg.Method)
	if !idem && (!s.floats(j) || got.Msg.Method == "initialize") {
		return false, nil
	}
	r := Repeat{Line: s.lines, Method: got.Msg.Method, Seq: s.sc.Client[j].Seq, Floating: s.floats(j)}
	s.repeats = append(s.repeats, r)
	if s.srv.Log != nil && idem {
		fmt.Fprintf(s.srv.Log, "replay: client line %d: request %s repeated: answered as recorded (seq %d), an idempotent method (%s refuses this)\n",
			r.Line, r.Method, r.Seq, s.option(OptionNoRepeats))
	}
	if s.srv.OnRepeat != nil {
		s.srv.OnRepeat(r)
	}
	return true, s.write(s.renderAs(i, got.Msg.ID))
}

// repeatSuggestion is what would have answered got as a repeat, or "".
func (s *session) repeatSuggestion(got Message) string {
	if j, _ := s.repeated(got); j < 0 {
		return ""
	}
	if !s.idempotent(got.Msg.Method) {
		return s.option(OptionIdempotent+got.Msg.Method) + " (a repeated " + got.Msg.Method + " is answered as recorded)"
	}
	if s.srv.NoRepeats {
		return s.option(OptionRepeats) + " (a repeated idempotent request is answered as recorded)"
	}
	return ""
}
