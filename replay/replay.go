// Package replay serves a recording as a fake codex app-server: it reads a client's
// messages, matches them to the client frames the recording expects, and answers
// with the server frames that followed them, byte for byte (only response ids, and
// values the client chose, are spliced in). It works over any io.Reader/io.Writer
// pair; it does not start processes, re-encode messages or use a JSON-RPC library.
package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/wire"
)

// Server serves one Script to one client. Only Script is required; the zero value
// of every other field is the default. A Server may be used for one Serve at a time.
type Server struct {
	// Script is what to serve (Load, LoadFile).
	Script *Script

	// Mode chooses the matcher (ModeParams by default); Matcher, when set, replaces it.
	Mode    Mode
	Matcher MatcherFunc

	// Rules narrow what the matcher compares, per method or for all (rules.go):
	// values to ignore, or the only values to compare.
	Rules []Rule

	// NoRepeats refuses a request the client sends more often than recorded; by
	// default one of an idempotent method is answered again (repeat.go).
	NoRepeats bool
	// Idempotent adds methods to DefaultIdempotent.
	Idempotent []string
	// OnRepeat, when set, is called for each request answered as a repeat.
	OnRepeat func(Repeat)

	// Unordered lets client messages arrive in a different order than recorded:
	// each is matched to the earliest expected frame it matches, and server frames
	// keep their recorded order within a thread only.
	Unordered bool

	// Speed scales the recorded gaps between server frames: 0 sends each frame as
	// soon as it is due (the default), 1 keeps the recorded timing, 2 halves it.
	Speed float64

	// Faults are the fault rules to inject (ParseFault).
	Faults []Fault

	// Patience is how long the client may send nothing while the next server frame
	// waits for a request or notification it has not sent, before that frame is sent
	// anyway: a client that waits for a notification recorded just after its own next
	// message would otherwise wait forever (see patience.go). Zero means
	// DefaultPatience; negative, never.
	Patience time.Duration

	// Strict makes every recorded client message required in its recorded place:
	// without it, a recorded client notification the live client never sends
	// (initialized) is skipped once the live client has gone past it, and listed on
	// Log at the end instead of failing the session (see skip.go).
	Strict bool

	// Hangup, when closed, makes Serve end as at the client's EOF (a client that
	// closes stdin and sends SIGTERM at once): lines the client wrote before are still
	// read, until in ends or the client has been silent for HangupGrace; then
	// the frames that are due are sent and unused frames are reported. (Whenever the
	// client closes its end, writes stop quietly and its input is read to the end.)
	Hangup <-chan struct{}

	// Paths are the real directories served where the recording holds a sanitizer's
	// path placeholder the live client did not fill in (<cwd>, <codex-home>, <home>,
	// <tmp>); the zero value takes this process's (see Paths).
	Paths Paths

	// KeepPlaceholders serves path placeholders as recorded instead (a client that
	// checks the recorded bytes themselves).
	KeepPlaceholders bool

	// FailFast makes Serve return at the first mismatch.
	FailFast bool

	// AllowUnused makes expected client frames that never came not an error.
	AllowUnused bool

	// Log receives the mismatch diagnostics and the list of unused frames; nil
	// discards them.
	Log io.Writer

	// OptionName spells a setting that would have accepted a mismatch as the
	// caller's users know it (a command maps them to its flags). The settings are
	// OptionNotStrict, OptionUnordered, OptionMatchParams and OptionMatchMethod;
	// nil spells them as this Server's fields ("Mode: ModeMethod").
	OptionName func(option string) string

	// Stderr, when set, receives the server's recorded stderr lines at their place
	// in the script.
	Stderr io.Writer

	// OnMismatch, when set, is called for each client message that matched nothing,
	// after the diagnostic is written and before the client gets its error.
	OnMismatch func(*Mismatch)

	// Handoff makes the first client message that matches nothing end Serve instead
	// of being answered with an error: nothing is written about it, what is due is
	// flushed, and Serve returns a *HandoffError saying where the client's stream
	// stands, so that the caller can hand the session to a real server (package
	// extend does).
	Handoff bool
}

// A HandoffError ends a Serve with Server.Handoff set at the first client message
// that matched nothing. Lines counts from 1 in the client's stream, as
// Mismatch.Line does.
type HandoffError struct {
	Mismatch *Mismatch // the message that matched nothing (its Line), and why
	// Held are the lines of live requests that were read before it and held for a
	// turn that never came (hold.go): unanswered, in the order they came.
	Held []int
}

func (e *HandoffError) Error() string {
	return "replay: handed off at " + e.Mismatch.Error()
}

// HangupGrace is how long Serve keeps reading after Server.Hangup while the client
// sends nothing more and its input has not ended.
const HangupGrace = 250 * time.Millisecond

// Sentinel errors. Serve's error wraps ErrNoMatch, ErrUnused or both (errors.Is).
var (
	// ErrNoMatch: a client message matched no expected frame.
	ErrNoMatch = errors.New("client message matched nothing in the recording")
	// ErrUnused: the client ended before sending every expected frame.
	ErrUnused = errors.New("expected client frames never came")
	// ErrNoSegment: the recording has no such segment.
	ErrNoSegment = errors.New("no such segment")
	// ErrBadFault: a fault rule could not be parsed.
	ErrBadFault = errors.New("bad fault rule")
)

// Mismatch describes a client message that matched no expected frame.
type Mismatch struct {
	Line     int          // 1-based position of the message in the client's stream
	Got      []byte       // what the client sent, without the newline (unmasked)
	Msg      wire.Message // its classification
	Reason   string       // why nothing matched, one line
	Expected *ClientFrame // the expected frame the replay waits for, or nil when none is left
	Later    *ClientFrame // in order, a frame recorded after Expected that Got matches, or nil
	Nearest  *ClientFrame // the expected frame of Got's kind and method it was compared with, or nil
	// Diff lists how Got's body differs from Nearest's, one JSON pointer per line
	// ("/params/x: live, recorded ..."), only what the match mode does not accept,
	// secrets masked.
	Diff []string
	// Accept names the flags that would have accepted Got, each with what it does.
	Accept []string
}

func (m *Mismatch) Error() string {
	// The reason quotes client and recorded messages: printed, it must carry no
	// secret and no terminal escape.
	return fmt.Sprintf("client line %d: %s", m.Line, sanitize.MaskText(m.Reason))
}

// Serve answers the client reading from in and writing to out until in ends, ctx is
// done, a fault ends the stream or FailFast stops at a mismatch. It returns nil when
// every client message matched and every expected one came; otherwise an error
// wrapping ErrNoMatch and/or ErrUnused. I/O errors are returned as they are. When a
// fault ends the stream early, out is closed if it is an io.Closer. The goroutine
// reading in ends when in does.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	if s.Script == nil {
		return errors.New("replay: Server.Script is nil")
	}
	if _, err := compileRules(s.Rules); err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	ss := newSession(s, out)
	if !s.KeepPlaceholders {
		paths, err := resolvePaths(s.Paths)
		if err != nil {
			return fmt.Errorf("replay %s: %w", s.Script.Name, err)
		}
		ss.paths, ss.restoring = paths, true
		defer func() {
			for _, f := range ss.cleanup {
				f()
			}
		}()
	}
	return ss.run(ctx, in)
}

// unusedError lists expected client frames that never came. A frame a mismatch was
// compared with (contested) is said to be unmatched, not missing, since the client
// did send something in its place.
func unusedError(name string, frames []*ClientFrame, contested map[int64]contest) error {
	var b strings.Builder
	fmt.Fprintf(&b, "replay %s: %d expected client frame", name, len(frames))
	if len(frames) != 1 {
		b.WriteByte('s')
	}
	first := frames[0]
	if c, ok := contested[first.Seq]; ok {
		fmt.Fprintf(&b, " never matched (first: seq %d %s; client line %d %s)", first.Seq, describe(first.Msg), c.line, c)
	} else {
		fmt.Fprintf(&b, " never came (first: seq %d %s)", first.Seq, describe(first.Msg))
	}
	return fmt.Errorf("%s: %w", b.String(), ErrUnused)
}

// describe names a message for humans: "request turn/start", "response 3".
func describe(m wire.Message) string {
	switch m.Kind {
	case wire.KindRequest, wire.KindNotification:
		return m.Kind.String() + " " + m.Method
	case wire.KindResponse, wire.KindError:
		s := m.Kind.String() + " id " + string(m.ID)
		if m.Method != "" {
			s += " (" + m.Method + ")"
		}
		return s
	}
	if m.Reason != "" {
		return m.Kind.String() + " (" + m.Reason + ")"
	}
	return m.Kind.String()
}
