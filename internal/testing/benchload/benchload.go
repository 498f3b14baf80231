// Package benchload is the realistic load of the benchmarks: one turn of a recorded
// session (a committed fixture), as internal/testing/benchserver serves it and as the record
// pipeline's in-process benchmark feeds it. It is for benchmarks only; it does not
// replay sessions (package replay does).
package benchload

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// Turn is what a fixture holds for the load: per client request method the recorded
// response (WithID gives it the request's id), the frames of the first turn after its
// response, and templates of single frames.
type Turn struct {
	Responses map[string][]byte
	// Frames are the server's notifications of the first turn, in order, up to
	// turn/completed; server requests (an approval) and serverRequest/resolved are
	// left out, since a benchmark client answers nothing. The first command-output
	// delta is grown to the size Load was given.
	Frames [][]byte
	// MsgDelta, OutDelta and Completed are a message delta, a command-output delta
	// (MsgDelta when the fixture has none) and the turn's turn/completed.
	MsgDelta, OutDelta, Completed []byte
}

// Load reads the first turn of the recording at path; outputSize > 0 grows its first
// command-output delta to that many bytes of command output.
func Load(path string, outputSize int) (*Turn, error) {
	rec, err := recorder.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s := &Turn{Responses: map[string][]byte{}}
	inTurn, grown := false, false
	for _, e := range rec.Frames(wire.ClientToServer, wire.ServerToClient) {
		line := e.Line
		if !wire.HasNewline(line) {
			line = append(bytes.Clone(line), '\n')
		}
		switch {
		case e.Dir == wire.ClientToServer && e.Msg.Kind == wire.KindRequest && e.Msg.Method == "turn/start":
			inTurn = s.Frames == nil
		case e.Dir != wire.ServerToClient:
		case e.Msg.Kind == wire.KindResponse:
			if _, ok := s.Responses[e.Msg.Method]; !ok && e.Msg.Method != "" {
				s.Responses[e.Msg.Method] = line
			}
		case e.Msg.Kind != wire.KindNotification:
			// a server request: not served (nothing answers it)
		case e.Msg.Method == "item/agentMessage/delta" && s.MsgDelta == nil:
			s.MsgDelta = line
			fallthrough
		default:
			if e.Msg.Method == "item/commandExecution/outputDelta" {
				if s.OutDelta == nil {
					s.OutDelta = line
				}
				if !grown && outputSize > 0 {
					line, grown = WithDelta(line, CommandOutput(outputSize)), true
				}
			}
			if e.Msg.Method == "turn/completed" && inTurn {
				s.Completed = line
			}
			if inTurn && e.Msg.Method != "serverRequest/resolved" {
				s.Frames = append(s.Frames, line)
			}
			if e.Msg.Method == "turn/completed" {
				inTurn = false
			}
		}
	}
	for _, m := range []string{"initialize", "turn/start"} {
		if s.Responses[m] == nil {
			return nil, fmt.Errorf("%s: no %s response", path, m)
		}
	}
	if s.Completed == nil || s.MsgDelta == nil {
		return nil, fmt.Errorf("%s: no turn with message deltas and turn/completed", path)
	}
	if s.OutDelta == nil {
		s.OutDelta = s.MsgDelta // -stream's large deltas are then message deltas
	}
	return s, nil
}

// CommandOutput is about n bytes of JSON-escaped build-log-like text.
func CommandOutput(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "ok  \\tgithub.com/example/project/internal/pkg%03d\\t0.%03ds\\tcoverage: %d.%d%% of statements\\n", i%1000, i%997, i%100, i%10)
	}
	return b.String()[:n]
}

// WithDelta is line with params.delta's JSON string replaced by the string whose
// escaped body is text.
func WithDelta(line []byte, text string) []byte {
	d := gjson.GetBytes(line, "params.delta")
	if d.Type != gjson.String || d.Index == 0 {
		return line
	}
	out := make([]byte, 0, len(line)+len(text))
	out = append(out, line[:d.Index+1]...)
	out = append(out, text...)
	return append(out, line[d.Index+len(d.Raw)-1:]...)
}

// WithID is a response line with its id replaced by id (raw JSON).
func WithID(line []byte, id string) []byte {
	v := gjson.GetBytes(line, "id")
	if !v.Exists() || v.Index == 0 {
		return line
	}
	out := make([]byte, 0, len(line)+len(id))
	out = append(out, line[:v.Index]...)
	out = append(out, id...)
	return append(out, line[v.Index+len(v.Raw):]...)
}
