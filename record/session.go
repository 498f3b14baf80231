// Package record is the record pipeline as a library: a Session takes each frame a
// proxy taps, validates it against the session's schema, sanitizes the copy that is
// kept, writes it to a recording and, at the end, runs the leak guard and publishes.
// It never touches the wire (package proxy forwards; Run and Serve wire the two
// together) and holds no package-level state, so one process may record many
// sessions at once, one Session each.
package record

import (
	"time"

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
	// Guard, when set, scans the finished recording before it is published and
	// refuses to publish one that still holds a secret (a *sanitize.LeakError).
	Guard *sanitize.Sanitizer
	// SecretNames names the variables behind the sanitizer's known secrets, for the
	// header (never their values).
	SecretNames []string
	// Taps see each frame after sanitizing, before it is written.
	Taps []func(*wire.Frame) error
	// SkipStderr leaves the server's stderr out of the recording.
	SkipStderr bool
	// Copying says the frames come from another recording whose meta entries the
	// caller copies: the session adds none of its own (the Codex version).
	Copying bool

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
		w.BeforePublish = func(tmp string) error {
			err := g.Guard(tmp)
			if le, ok := err.(*sanitize.LeakError); ok {
				le.File = w.Path()
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
	if s.Validator != nil && f.Dir != wire.Stderr {
		s.addFindings(f.Time, s.Validator.Frame(f))
	}
	if s.Sanitizer != nil {
		s.sanitize(f)
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

// addFindings queues findings as entries, preceded the first time by the meta entry
// naming the schema version in use. A finding's reason may quote the frame: it is
// sanitized like the frame.
func (s *Session) addFindings(t time.Duration, fs []schema.Finding) {
	if !s.schemaNoted {
		if c, ok := s.Validator.Chosen(); ok {
			s.schemaNoted = true
			s.extra = append(s.extra, recorder.Entry{Type: recorder.TypeMeta, Time: t,
				Header: &recorder.Header{SchemaVersion: c.Schema, Notes: s.Validator.Notes()}})
		}
	}
	for _, f := range fs {
		s.findings = append(s.findings, f)
		e := recorder.Entry{Type: recorder.TypeFinding, Seq: f.Seq, Time: t, Dir: f.Dir,
			Msg: wire.Message{Method: f.Method}, Rule: string(f.Rule), Severity: string(f.Rule.Severity()),
			Pointer: f.Pointer, Reason: f.Reason}
		if z := s.Sanitizer; z != nil {
			e.Reason, e.Detail = z.Text(e.Reason), z.Text(e.Detail)
		}
		s.extra = append(s.extra, e)
	}
}

func (s *Session) sanitize(f *wire.Frame) {
	// The proxy classified the line already: JSON validity need not be checked again.
	out, reds := s.Sanitizer.FrameClassified(f.Line, f.Dir != wire.Stderr && f.Msg.Kind.IsJSON())
	f.Line = out
	if len(reds) == 0 {
		return
	}
	if s.redactions == nil {
		s.redactions = map[string]int{}
	}
	for _, r := range reds {
		s.redactions[r.Rule]++
		s.extra = append(s.extra, recorder.Entry{Type: recorder.TypeRedaction, Seq: f.Seq, Time: f.Time, Dir: f.Dir,
			Msg: wire.Message{Method: f.Msg.Method}, Rule: r.Rule, Pointer: r.Pointer, Detail: r.Placeholder})
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
// is a *sanitize.LeakError; the recording is then not published.
func (s *Session) Finish(t recorder.Trailer) (recorder.Trailer, error) {
	if s.Validator != nil {
		var at time.Duration
		if s.Writer != nil {
			at = s.Writer.Since()
		}
		s.extra = s.extra[:0]
		s.addFindings(at, s.Validator.Finish())
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
