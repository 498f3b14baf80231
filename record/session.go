// Package record is the record pipeline as a library: a Session takes each frame a
// proxy taps, validates it against the session's schema, sanitizes the copy that is
// kept, writes it to a recording and, at the end, runs the leak guard and publishes.
// It never touches the wire (package proxy forwards; Run and Serve wire the two
// together) and holds no package-level state, so one process may record many
// sessions at once, one Session each.
package record

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/codexrec/codexrec/proxy"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/wire"
)

// Session records one session. Every field is optional: the zero value passes frames
// to Taps and keeps nothing. Frame and Finish must be called from one goroutine (the
// proxy's tap goroutine does).
type Session struct {
	// Writer receives the frames and annotations; nil records nothing. Create makes
	// one with the header completed by the stages.
	Writer *recorder.Writer
	// Validator checks each frame against the session's Codex version (findings are
	// written after their frame); nil does not validate.
	Validator *schema.SessionValidator
	// Sanitizer rewrites each frame's recorded copy (redactions are written after the
	// frame); nil records frames as they crossed.
	Sanitizer *sanitize.Sanitizer
	// Guard, when set, runs the leak guard on the recording before it is published
	// (it follows the file as it is written, so little is left at the end):
	// whatever secret it finds is redacted in place and the recording is published
	// (Finish then returns a *sanitize.RedactedError). A finding it cannot locate at
	// a span has its frame's string values redacted whole, and the recording is
	// still published. Only if its detectors still found something after that (a
	// last resort that the guard's passes leave no way to) is it not published (a
	// *sanitize.LeakError), and the file is then kept as NAME.quarantine (0600).
	// When Guard is the Sanitizer itself, the frames' messages (its own output) are
	// not checked again as the session goes; everything else in the file is.
	Guard *sanitize.Sanitizer
	// SecretNames names the variables behind the sanitizer's known secrets, for the
	// header (never their values).
	SecretNames []string
	// Taps see each frame after sanitizing, before it is written.
	Taps []func(*wire.Frame) error
	// SkipStderr leaves the server's stderr out of the recording.
	SkipStderr bool
	// DiscardFailedStart keeps no recording of a server that could not be started
	// (Run returns the error, wrapping proxy.ErrStart), so a corrected command finds
	// nothing in its way.
	DiscardFailedStart bool
	// Copying says the frames come from another recording whose meta entries the
	// caller copies: the session adds none of its own (the Codex version).
	Copying bool
	// Segment is the server lifetime Run records, for its exit entry (zero: 1); a
	// caller appending a lifetime to a recording writes the segment entry itself.
	Segment int

	// pending are frames whose recorded copies wait for a delta's successor (see
	// lookahead). Forwarding never waits.
	pending lookahead
	// guardRedacted is what the leak guard had to redact before publishing.
	guardRedacted []sanitize.Leak
	// guard follows the recording as it is written (nil without a Guard).
	guard *guardFollower
	// check is the Guard when the session has no Sanitizer and the guard follows
	// the file: its detectors look at each frame as it is written (watch), the
	// delta frames among watching waiting for their successor.
	check    *sanitize.Sanitizer
	watching lookahead
	// stage, while set, sanitizes and writes the frames on a goroutine of its own
	// (see stage.go); Frame's goroutine validates them.
	stage *stage

	versionSeen bool
	schemaNoted bool
	findings    []schema.Finding
	redactions  map[string]int
	extra       []recorder.Entry
}

// Create completes h with what the stages know (the schema version when it is
// fixed already, how the recording is sanitized; the command and notes sanitized),
// creates the recording at path and hooks the leak guard into its publishing. A bad
// stage setting (an unknown --codex-version) fails before the file exists.
func (s *Session) Create(path string, h recorder.Header, opt recorder.Options) error {
	if err := s.Prepare(&h); err != nil {
		return err
	}
	w, err := recorder.Create(path, h, opt)
	if err != nil {
		return err
	}
	s.Attach(w)
	return nil
}

// Prepare starts the stages and completes h, for a caller that creates the writer
// itself (then Attach it).
func (s *Session) Prepare(h *recorder.Header) error {
	if s.Validator != nil {
		if err := s.Validator.Start(); err != nil {
			return err
		}
		if c, ok := s.Validator.Chosen(); ok {
			h.SchemaVersion = c.Schema
			h.Notes = append(h.Notes, s.Validator.Notes()...)
			s.schemaNoted = true
		}
	}
	if z := s.Sanitizer; z != nil {
		h.Command, h.Notes = z.Strings(h.Command), z.Strings(h.Notes)
		h.Sanitize = &recorder.SanitizeInfo{Rules: sanitize.RuleNames(), Maps: z.MapNames(), SecretEnvs: s.SecretNames, Salted: z.Salted()}
	}
	return nil
}

// Attach makes w the session's writer and hooks the leak guard into its publishing.
func (s *Session) Attach(w *recorder.Writer) {
	s.Writer = w
	if g := s.Guard; g != nil {
		// The guard checks the recording as it is written; at the end it reads only
		// what it has not yet, and reads the whole file again only to redact.
		// A frame's message is the sanitizer's output: when the sanitizer is the
		// guard's own, the follower does not check it again.
		// Without a sanitizer, the guard's detectors look at each frame as it is
		// written instead, and the follower trusts what they found clean (see
		// guardFollower).
		gf := followGuard(g, w.TempPath(), s.Sanitizer == g || s.Sanitizer == nil)
		s.guard = gf
		if gf != nil {
			w.Written = gf.written
			if s.Sanitizer == nil {
				s.check = g
			}
		}
		w.BeforePublish = func(tmp string) error {
			if gf != nil && gf.finish() {
				return nil
			}
			redacted, err := g.GuardRedact(tmp)
			s.guardRedacted = redacted
			if le, ok := err.(*sanitize.LeakError); ok {
				le.File = w.Path()
				le.Quarantine, _ = recorder.Quarantine(tmp, w.Path())
			} else if err != nil {
				// The guard could not run to the end (a full disk for its spool): the
				// recording is kept, unpublished, where a leak would be.
				if q, qerr := recorder.Quarantine(tmp, w.Path()); qerr == nil {
					// Its temporary files are gone: the message names none of them.
					var pe *fs.PathError
					if errors.As(err, &pe) {
						err = fmt.Errorf("%s: %w", pe.Op, pe.Err)
					}
					return fmt.Errorf("the leak guard could not finish (%w): the recording was not checked and is kept unpublished at %s", err, q)
				}
			}
			return err
		}
	}
}

// Frame runs f through the stages and writes it, followed by its findings and
// redactions. The stages may replace f.Line (the sanitized copy); the proxy forwards
// its own bytes and never reads a tapped frame again.
func (s *Session) Frame(f *wire.Frame) error {
	if f.Dir == wire.Stderr && s.SkipStderr {
		return nil
	}
	v := s.validate(f)
	if s.check != nil {
		// Without a sanitizer the frame is written as it crossed, at once; the
		// guard's detectors look at it beside, on the stage when there is one
		// (watch).
		if err := s.frame(f, nil, v); err != nil {
			return err
		}
		if s.stage != nil {
			return s.stage.push(f, verdict{})
		}
		s.watch(f)
		s.watching.keep() // the proxy reuses f's memory once the tap returns
		return nil
	}
	if s.stage != nil {
		return s.stage.push(f, v)
	}
	err := s.record(f, v)
	s.pending.keep() // the proxy reuses f's memory once the tap returns
	return err
}

// Idle flushes what the session has written so far; with Frame it makes the Session a
// wire.Tap, whose Idle the proxy calls whenever it has caught up.
func (s *Session) Idle() error {
	if s.stage != nil && s.check == nil {
		return s.stage.idle()
	}
	if s.Writer != nil {
		return s.Writer.Flush()
	}
	return nil
}

// record sanitizes f (v is what its validation found) and writes it, or holds it
// for a delta's lookahead, its line borrowed until the caller's pending.keep.
func (s *Session) record(f *wire.Frame, v verdict) error {
	if s.Sanitizer == nil {
		return s.frame(f, nil, v)
	}
	// One frame of lookahead for deltas: a delta is sanitized knowing the next
	// frame of its direction. Frames stay in order; only their writing waits.
	s.pending.saw(f)
	if len(f.Line) > maxHeld {
		// A huge line is not copied to wait for its successor: what waits is
		// written (a frame whose successor is unknown falls back to the edge
		// heuristics, as at the end of a session), then the line, as it is.
		if err := s.writePending(true); err != nil {
			return err
		}
		return s.frame(f, nil, v)
	}
	c := *f // its line stays the caller's until pending.keep
	if !s.pending.hold(&c, v, true) {
		return s.frame(f, nil, v)
	}
	return s.writePending(false)
}

// writePending writes the waiting frames that may go (lookahead.out).
func (s *Session) writePending(all bool) error {
	for p, ok := s.pending.out(all); ok; p, ok = s.pending.out(all) {
		if err := s.frame(p.f, p.next, p.v); err != nil {
			return err
		}
	}
	return nil
}

// verdict is what validating a frame found: its findings, and the schema version's
// meta entry to write first when this is the first time it is known.
type verdict struct {
	meta     *recorder.Header
	findings []schema.Finding
}

// validate checks f against the session's schema (nothing without a Validator).
func (s *Session) validate(f *wire.Frame) verdict {
	if s.Validator == nil || f.Dir == wire.Stderr {
		return verdict{}
	}
	return s.verdict(s.Validator.Frame(f))
}

// verdict makes fs a verdict, with the meta entry naming the schema version in use
// the first time it is known.
func (s *Session) verdict(fs []schema.Finding) verdict {
	v := verdict{findings: fs}
	if !s.schemaNoted {
		if c, ok := s.Validator.Chosen(); ok {
			s.schemaNoted = true
			v.meta = &recorder.Header{SchemaVersion: c.Schema, Notes: s.Validator.Notes()}
		}
	}
	return v
}

// frame runs f through the stages and writes it; next is the line that follows f
// (nil when unknown), for the sanitizer, and v what its validation found.
func (s *Session) frame(f *wire.Frame, next []byte, v verdict) error {
	w := s.Writer
	if !s.versionSeen && !s.Copying && w != nil {
		if v := wire.CodexVersion(f); v != "" {
			s.versionSeen = true
			if err := w.UpdateHeader(f.Time, recorder.Header{CodexVersion: v}); err != nil {
				return err
			}
		}
	}
	s.extra = s.extra[:0]
	s.addFindings(f.Time, v)
	if s.Sanitizer != nil {
		s.sanitize(f, next)
		s.scanTrusted(f)
	}
	for _, tap := range s.Taps {
		if err := tap(f); err != nil {
			return err
		}
	}
	if w == nil {
		return nil
	}
	if err := w.WriteFrame(f); err != nil {
		return err
	}
	return s.writeExtra()
}

// addFindings queues a verdict's findings as entries, preceded by its meta entry
// naming the schema version in use. A finding's reason may quote the frame: it is
// sanitized like the frame.
func (s *Session) addFindings(t time.Duration, v verdict) {
	if v.meta != nil {
		s.extra = append(s.extra, recorder.Entry{Type: recorder.TypeMeta, Time: t, Header: v.meta})
	}
	for _, f := range v.findings {
		s.findings = append(s.findings, f)
		e := recorder.Entry{Type: recorder.TypeFinding, Seq: f.Seq, Time: t, Dir: f.Dir,
			Msg: wire.Message{Method: f.Method}, Rule: string(f.Rule), Severity: string(f.Rule.Severity()),
			Pointer: f.Pointer, Reason: f.Reason}
		if z := s.Sanitizer; z != nil {
			// Everything a finding copies from the frame is sanitized like it.
			e.Reason, e.Detail = z.Text(e.Reason), z.Text(e.Detail)
			e.Msg.Method, e.Pointer = z.Text(e.Msg.Method), z.Text(e.Pointer)
		}
		s.extra = append(s.extra, e)
	}
}

// through runs z over f's line as recording does: a delta knowing next, the line
// that follows it in its direction (nil when unknown).
func through(z *sanitize.Sanitizer, f *wire.Frame, next []byte) ([]byte, []sanitize.Redaction) {
	// The proxy classified the line already: JSON validity need not be checked again.
	isJSON := f.Dir != wire.Stderr && f.Msg.Kind.IsJSON()
	if next != nil {
		return z.FrameFollowedBy(f.Line, isJSON, next)
	}
	return z.FrameClassified(f.Line, isJSON)
}

func (s *Session) sanitize(f *wire.Frame, next []byte) {
	out, reds := through(s.Sanitizer, f, next)
	f.Line = out
	if len(reds) == 0 {
		return
	}
	// The entry repeats the message's method and id beside it: they are sanitized
	// like the line they came from.
	f.Msg.Method, f.Msg.ID = s.Sanitizer.Text(f.Msg.Method), wire.ID(s.Sanitizer.Text(string(f.Msg.ID)))
	if s.redactions == nil {
		s.redactions = map[string]int{}
	}
	method := f.Msg.Method
	for _, r := range reds {
		s.redactions[r.Rule]++
		s.extra = append(s.extra, recorder.Entry{Type: recorder.TypeRedaction, Seq: f.Seq, Time: f.Time, Dir: f.Dir,
			Msg: wire.Message{Method: method}, Rule: r.Rule, Pointer: r.Pointer, Detail: r.Placeholder})
	}
}

// watch has the guard's detectors look at f (detect) as a sanitizer would: a delta
// knowing the frame that follows it in its direction, so it waits for it (see
// lookahead). f's line stays the caller's until watching.keep.
func (s *Session) watch(f *wire.Frame) {
	if s.guard.distrusted.Load() {
		s.watching = nil // the file goes through GuardRedact: nothing more to look at
		return
	}
	s.watching.saw(f)
	if len(f.Line) > maxHeld {
		s.watchPending(true)
		s.detect(f, nil)
		return
	}
	c := *f
	if !s.watching.hold(&c, verdict{}, true) {
		s.detect(f, nil)
		return
	}
	s.watchPending(false)
}

// watchPending checks the waiting frames that may go (lookahead.out).
func (s *Session) watchPending(all bool) {
	for p, ok := s.watching.out(all); ok; p, ok = s.watching.out(all) {
		s.detect(p.f, p.next)
	}
}

// detect runs the guard's detectors over f as a sanitizer would (knowing next, the
// line after a delta), changing nothing: the first frame they would change makes
// the guard distrust the file (see guardFollower), after which they rest.
func (s *Session) detect(f *wire.Frame, next []byte) {
	if s.guard.distrusted.Load() {
		return
	}
	if out, reds := through(s.check, f, next); len(reds) > 0 || !bytes.Equal(out, f.Line) {
		s.guard.distrust()
		return
	}
	s.scanTrusted(f)
}

// scanTrusted looks for a known secret in a sanitized message where the
// sanitizer's walk of its strings does not (sanitize's FindsAcrossStrings), when
// the guard's follower trusts the session's messages (see guardFollower); one found
// makes the file go through GuardRedact.
func (s *Session) scanTrusted(f *wire.Frame) {
	g := s.guard
	if g == nil || !g.trust || f.Dir == wire.Stderr || !f.Msg.Kind.IsJSON() || g.distrusted.Load() {
		return
	}
	if s.Guard.FindsAcrossStrings(f.Line) {
		g.distrust()
	}
}

func (s *Session) writeExtra() error {
	for _, e := range s.extra {
		if err := s.Writer.WriteEntry(e); err != nil {
			return err
		}
	}
	s.extra = s.extra[:0]
	return nil
}

// Finish ends the session: frames still waiting for a schema version are checked,
// the trailer t is written (frame and finding counts filled in), the leak guard runs
// and the recording is published. It returns the trailer as written. A guard refusal
// is a *sanitize.LeakError (the recording is then not published, and quarantined);
// a *sanitize.RedactedError says it was published after the guard redacted it.
func (s *Session) Finish(t recorder.Trailer) (recorder.Trailer, error) {
	if s.guard != nil {
		defer s.guard.stop()
	}
	if s.stage != nil {
		var res proxy.Result
		s.settle(&res)
		if res.TapErr != nil && t.Error == "" {
			t.Ended, t.Error = recorder.EndError, res.TapErr.Error()
		}
	}
	if s.check != nil {
		s.watchPending(true)
	}
	if err := s.writePending(true); err != nil {
		// A write error (a full disk) is not the end of the recording: Close keeps
		// every entry written whole and says where. Anything else discards it.
		if s.Writer == nil || s.Writer.Err() == nil {
			if s.Writer != nil {
				s.Writer.Abort()
			}
			return t, err
		}
		s.pending = nil
	}
	if s.Validator != nil {
		var at time.Duration
		if s.Writer != nil {
			at = s.Writer.Since()
		}
		s.extra = s.extra[:0]
		s.addFindings(at, s.verdict(s.Validator.Finish()))
		if s.Writer != nil {
			// A write error here is not the end of the recording: Close keeps every
			// entry written whole and says so.
			s.writeExtra()
		}
	}
	if s.Writer == nil {
		return t, nil
	}
	if s.Sanitizer != nil {
		t.Error = s.Sanitizer.Text(t.Error)
	}
	err := s.Writer.Close(t)
	t.Frames, t.Findings = s.Writer.Counts()
	if err == nil && len(s.guardRedacted) > 0 {
		err = &sanitize.RedactedError{File: s.Writer.Path(), Leaks: s.guardRedacted}
	}
	return t, err
}

// Report is what a session found, for a summary.
type Report struct {
	Schema     schema.Choice // zero when nothing was validated
	Notes      []string      // how the schema version was chosen
	Findings   []schema.Finding
	Redactions map[string]int // per rule
}

// Report says what the session found so far.
func (s *Session) Report() Report {
	r := Report{Findings: s.findings, Redactions: s.redactions}
	if s.Validator != nil {
		r.Schema, _ = s.Validator.Chosen()
		r.Notes = s.Validator.Notes()
	}
	return r
}
