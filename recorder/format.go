// Package recorder writes and reads codexrec recordings: a versioned JSON Lines file
// holding a header, every frame that crossed the proxy in both directions (each JSON
// message embedded byte for byte), annotations such as findings, and a trailer.
// It does not decide what to record or how to sanitize it; callers hand it frames.
package recorder

import (
	"errors"
	"time"

	"github.com/codexrec/codexrec/wire"
)

// FormatVersion is the version of the recording format this package writes.
// The reader accepts every version from 1 up to it.
const FormatVersion = 1

// EntryType is the "type" member of a recording line.
type EntryType string

const (
	TypeHeader    EntryType = "header"    // first line: who recorded what, when
	TypeFrame     EntryType = "frame"     // one line that crossed the proxy
	TypeMeta      EntryType = "meta"      // amends the header once a fact is known (the Codex version)
	TypeFinding   EntryType = "finding"   // a problem found in a frame (schema validation, checks)
	TypeRedaction EntryType = "redaction" // a span of a frame replaced by a placeholder
	TypeSegment   EntryType = "segment"   // a new server process lifetime begins
	TypeExit      EntryType = "exit"      // a server process ended
	TypeTrailer   EntryType = "trailer"   // last line: how the session ended
)

// Header describes a recording. Fields learned during the session (CodexVersion,
// SchemaVersion) arrive later in meta entries; Reader merges them in.
type Header struct {
	Format        int      `json:"format,omitempty"`
	Codexrec      string   `json:"codexrec,omitempty"`
	Started       string   `json:"started,omitempty"` // RFC 3339, UTC
	Command       []string `json:"command,omitempty"`
	CodexVersion  string   `json:"codexVersion,omitempty"`
	SchemaVersion string   `json:"schemaVersion,omitempty"`
	// Scenario names the capture scenario that produced the recording, if any.
	Scenario string `json:"scenario,omitempty"`
	// Sanitize lists the sanitizing rules and path maps applied (never their values).
	Sanitize *SanitizeInfo `json:"sanitize,omitempty"`
	// Notes are one-line remarks worth keeping with the recording.
	Notes []string `json:"notes,omitempty"`
	// Socket describes the WebSocket connection the recording holds; nil for stdio.
	Socket *SocketInfo `json:"socket,omitempty"`
}

// SocketInfo describes one WebSocket connection (ws:// or unix://). A record run
// that accepts several connections writes one recording per connection; they share
// Session, so a reader can correlate connections that share threads.
type SocketInfo struct {
	Transport  string `json:"transport"`      // "ws" or "unix"
	Session    string `json:"session"`        // the same for every connection of one run
	Connection int    `json:"connection"`     // 1-based, in the order connections were accepted
	Path       string `json:"path,omitempty"` // the upgrade request's target, e.g. "/"
	// Headers are the upgrade request's headers, credentials (Authorization,
	// cookies) replaced by "<redacted>": the recording says auth was used, never how.
	Headers map[string][]string `json:"headers,omitempty"`
}

// SanitizeInfo says how a recording was sanitized.
type SanitizeInfo struct {
	Rules      []string `json:"rules,omitempty"`
	Maps       []string `json:"maps,omitempty"` // placeholders only, e.g. "<cwd>"
	SecretEnvs []string `json:"secretEnvs,omitempty"`
	Salted     bool     `json:"salted,omitempty"`
}

// Ending says how a session ended.
type Ending string

const (
	EndClientEOF   Ending = "client-eof"   // the client closed stdin and the server then exited
	EndChildExit   Ending = "child-exit"   // the server exited on its own
	EndSignal      Ending = "signal"       // the proxy got a signal and forwarded it
	EndStartFailed Ending = "start-failed" // the server could not be started
	EndError       Ending = "error"        // an I/O error ended the session
	// WebSocket connections: either side may end one; a dropped connection is an
	// ordinary end (the app-server never sends a close frame).
	EndClientClosed Ending = "client-closed" // the client closed or dropped the connection
	EndServerClosed Ending = "server-closed" // the server closed or dropped the connection
	// EndProxyKilled is written by recovery (Recover) on a recording whose proxy was
	// killed before it could write a trailer.
	EndProxyKilled Ending = "proxy-killed"
)

// Entry is one line of a recording other than the header and trailer.
type Entry struct {
	Type EntryType
	Seq  int64         // frame sequence number; for annotations, the frame they are about
	Time time.Duration // since the session started
	Dir  wire.Direction

	// Frame fields.
	Msg  wire.Message // classification recorded with the frame
	Line []byte       // the exact bytes of the frame, including '\n' when it had one
	// Undelivered marks a frame that was recorded but never reached its reader (the
	// client stopped reading).
	Undelivered bool

	// Annotation fields (finding, redaction).
	Rule     string
	Severity string
	Pointer  string // RFC 6901 JSON pointer into the message
	Reason   string
	Detail   string // a placeholder for redactions; free text otherwise

	// Segment and exit fields.
	Segment int
	Command []string
	// Extends, on a segment entry, is the segment this lifetime continues in a
	// client's place (a replay extended with the real server): replay serves it
	// instead of that one. Zero for an ordinary restart.
	Extends  int
	ExitCode int
	Signal   string

	// Header is the partial header carried by a meta entry.
	Header *Header
}

// JSON is the frame's message without its newline, or nil when the frame is raw.
func (e *Entry) JSON() []byte {
	if e.Type != TypeFrame || !e.Msg.Kind.IsJSON() {
		return nil
	}
	return wire.Content(e.Line)
}

// Trailer is the last line of a complete recording.
type Trailer struct {
	Ended    Ending           `json:"ended"`
	ExitCode int              `json:"exitCode"`
	Signal   string           `json:"signal,omitempty"`
	Error    string           `json:"error,omitempty"`
	Duration float64          `json:"duration"` // seconds
	Frames   map[string]int64 `json:"frames"`   // per direction
	Findings int64            `json:"findings,omitempty"`
	Segments int              `json:"segments,omitempty"`
	// ClientError says why writing to the client failed. Frames bound for the client
	// after LastDelivered (a seq; 0 when none was delivered) are marked undelivered,
	// and Undelivered counts them.
	ClientError   string `json:"clientError,omitempty"`
	LastDelivered int64  `json:"lastDelivered,omitempty"`
	Undelivered   int64  `json:"undelivered,omitempty"`
}

// Sentinel errors.
var (
	ErrExists        = errors.New("already exists")
	ErrFormatVersion = errors.New("unsupported recording format version")
	ErrNoHeader      = errors.New("not a recording: first line is not a header")
	// ErrNotReplaceable: --force replaces only a regular file or a symbolic link.
	ErrNotReplaceable = errors.New("only a regular file or a symbolic link is replaced")
	// ErrCutShort: a write error (a full disk) ended the recording early; what was
	// written is kept.
	ErrCutShort = errors.New("recording cut short by a write error")
	// ErrInProgress: the temporary file is still being written by a live codexrec.
	ErrInProgress = errors.New("recording still in progress")
)
