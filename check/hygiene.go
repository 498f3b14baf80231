package check

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/codexrec/codexrec/internal/jsonx"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/wire"
)

// noise reports a frame that is not a JSON-RPC message.
func (s *state) noise(e *recorder.Entry) {
	rule := RuleStdoutNoise
	switch {
	case e.Msg.Reason == wire.ReasonInvalidUTF8:
		rule = RuleInvalidUTF8
	case e.Dir == wire.ClientToServer:
		rule = RuleClientNoise
	}
	what := e.Msg.Reason
	switch what {
	case wire.ReasonBlank:
		what = "blank line"
	case wire.ReasonNotJSON:
		what = "not JSON"
	case wire.ReasonInvalidUTF8:
		what = "invalid UTF-8"
	case wire.ReasonBatch:
		what = "a JSON array (batch)"
	case wire.ReasonNotObject:
		what = "JSON but not an object"
	case wire.ReasonNotJSONRPC:
		what = "a JSON object that is not JSON-RPC"
	}
	s.report(Finding{Rule: rule, Seqs: []int64{e.Seq}, Dir: e.Dir.String(),
		Message: fmt.Sprintf("%s on %s: %s", what, stream(e.Dir), preview(wire.Content(e.Line)))})
}

func stream(d wire.Direction) string {
	switch d {
	case wire.ServerToClient:
		return "the server's stdout"
	case wire.ClientToServer:
		return "the client's output"
	}
	return "stderr"
}

// preview quotes the start of a line, kept short so a finding never becomes a dump
// of the line. It masks before it cuts, so a secret across the cut is still found.
func preview(b []byte) string {
	const n, window = 60, 4 << 10
	if len(b) > window {
		b = b[:window]
	}
	s := sanitize.MaskText(string(bytes.ToValidUTF8(b, []byte("?"))))
	if len(s) > n {
		return fmt.Sprintf("%q...", cutUTF8(s, n))
	}
	return fmt.Sprintf("%q", s)
}

// escapes reports a JSON message carrying an escaped ESC character (\u001b, the
// start of an ANSI colour or cursor sequence a client would print verbatim), or an
// escaped lone UTF-16 surrogate (\ud800 without its pair), which decodes to no valid
// UTF-8 and which strict parsers reject. One finding of each kind per message.
func (s *state) escapes(e *recorder.Entry, msg []byte) {
	var ansi, lone bool
	for off := 0; off < len(msg) && !(ansi && lone); {
		i := bytes.Index(msg[off:], []byte(`\u`))
		if i < 0 {
			return
		}
		i += off
		off = i + 2
		if !escaped(msg, i) {
			continue
		}
		r, n := jsonx.DecodeU(msg[i:])
		if n == 2 {
			continue // not four hex digits
		}
		off = i + n // past a surrogate pair as a whole
		switch {
		case r == 0x1b && !ansi:
			ansi = true
			s.report(Finding{Rule: RuleANSI, Seqs: []int64{e.Seq}, Dir: e.Dir.String(), Method: e.Msg.Method,
				Message: fmt.Sprintf("%s message carries an ANSI escape (\\u001b) at byte %d", e.Msg.Method, i)})
		case r == utf8.RuneError && n == 6 && !lone:
			// DecodeU gives U+FFFD for a lone surrogate, and for a \ufffd as written.
			if u, _ := jsonx.Hex4(msg[i+2 : i+6]); utf16.IsSurrogate(u) {
				lone = true
				s.report(Finding{Rule: RuleInvalidUTF8, Seqs: []int64{e.Seq}, Dir: e.Dir.String(), Method: e.Msg.Method,
					Message: fmt.Sprintf("%s message carries a lone UTF-16 surrogate %s at byte %d: it decodes to no valid UTF-8", e.Msg.Method, msg[i:i+6], i)})
			}
		}
	}
}

// escaped reports whether the backslash at b[i] starts an escape, i.e. is not itself
// escaped by an odd run of backslashes before it.
func escaped(b []byte, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
		n++
	}
	return n%2 == 0
}

// stderr counts ERROR lines of the server's tracing log.
func (s *state) stderr(e *recorder.Entry) {
	line := wire.Content(e.Line)
	if !bytes.Contains(line, []byte("ERROR")) {
		return
	}
	plain := stripANSI(string(bytes.ToValidUTF8(line, []byte("?"))))
	f := strings.Fields(plain)
	// tracing's "TIME ERROR target: ..." or a bare "ERROR: ...".
	isErr := len(f) > 0 && strings.TrimSuffix(f[0], ":") == "ERROR" || len(f) > 1 && f[1] == "ERROR"
	if !isErr {
		return
	}
	s.report(Finding{Rule: RuleStderrError, Seqs: []int64{e.Seq}, Dir: "stderr", Message: oneLine(sanitize.MaskText(plain), 200)})
}

// stripANSI removes CSI sequences (ESC [ ... final byte) and lone ESC characters.
func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
		}
	}
	return b.String()
}

func (s *state) exit(e *recorder.Entry) {
	if e.ExitCode == 0 && e.Signal == "" {
		return
	}
	msg := fmt.Sprintf("server lifetime %d exited with code %d", e.Segment, e.ExitCode)
	if e.Signal != "" {
		msg = fmt.Sprintf("server lifetime %d was killed by %s (exit code %d)", e.Segment, e.Signal, e.ExitCode)
	}
	s.report(Finding{Rule: RuleServerExit, Segment: e.Segment, Message: msg})
}

// trailerExit reports the server's end from the trailer, for recordings without
// exit entries.
func (s *state) trailerExit(t *recorder.Trailer, sawExit bool) {
	switch {
	case sawExit:
	case t.Ended == recorder.EndStartFailed:
		s.report(Finding{Rule: RuleServerExit, Message: "the server could not be started: " + oneLine(sanitize.MaskText(t.Error), 200)})
	case t.ExitCode != 0:
		s.report(Finding{Rule: RuleServerExit, Message: fmt.Sprintf("the server exited with code %d (session ended: %s)", t.ExitCode, t.Ended)})
	}
	if t.Ended == recorder.EndError {
		s.report(Finding{Rule: RuleTruncated, Message: "recording ended by an I/O error, frames may be missing: " + oneLine(sanitize.MaskText(t.Error), 200)})
	}
}
