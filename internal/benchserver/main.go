// Command benchserver is a stand-in for codex app-server on the benchmarks' realistic
// load: it answers initialize, thread/start and each turn/start with frames taken from
// a recorded session (a committed fixture), byte for byte. It is not a fake model and
// decides nothing: it replays one recorded turn as fast as the pipe takes it, so that
// what a proxy costs on a real turn can be measured against the server alone.
//
// The served turn is the recorded turn/start response, then every notification the
// server sent for that turn up to turn/completed. Server requests inside the turn (an
// approval) and their serverRequest/resolved are left out: a benchmark client answers
// nothing. The turn's first command-output delta is grown to -output-kb of command
// output (the fixtures' commands print one line), since output deltas are most of a
// real session's bytes.
//
// With -stream N, each turn/start is answered with its response, N small message
// deltas paced -interval apart, every -big-every'th of them a -big-kb command-output
// delta instead, then turn/completed; each delta's text starts with the time it was
// written ("t<unix-ns> "), for the client to measure each frame's latency.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/internal/jsonx"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

func main() {
	fixture := flag.String("fixture", "", "the recording to take the turn from (`FILE`, required)")
	outputKB := flag.Int("output-kb", 64, "grow the turn's first command-output delta to `N` KB (0: as recorded)")
	stream := flag.Int("stream", 0, "answer each turn/start with `N` paced deltas instead of the recorded turn")
	bigEvery := flag.Int("big-every", 100, "with -stream, every `N`th delta is a large command-output delta")
	bigKB := flag.Int("big-kb", 200, "with -stream, the large deltas' size in `KB`")
	interval := flag.Duration("interval", 200*time.Microsecond, "with -stream, the pause between deltas")
	flag.Parse()
	if *fixture == "" {
		fmt.Fprintln(os.Stderr, "benchserver: -fixture FILE is required")
		os.Exit(2)
	}
	s, err := load(*fixture, *outputKB*1024)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchserver:", err)
		os.Exit(2)
	}
	if *stream > 0 {
		s.stream = &streamSpec{n: *stream, bigEvery: *bigEvery, bigSize: *bigKB * 1024, interval: *interval}
	}
	if err := s.serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchserver:", err)
		os.Exit(1)
	}
}

// server holds the recorded answers: per request method, the response (its id is
// replaced by the request's) and, for turn/start, the turn's notifications.
type server struct {
	responses map[string][]byte
	turn      [][]byte
	// templates for -stream: a message delta, a command-output delta, turn/completed.
	msgDelta, outDelta, completed []byte
	stream                        *streamSpec
}

type streamSpec struct {
	n, bigEvery, bigSize int
	interval             time.Duration
}

// load reads the fixture: the first response to each client request method, and the
// frames of the first turn (see the package comment).
func load(path string, outputSize int) (*server, error) {
	rec, err := recorder.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s := &server{responses: map[string][]byte{}}
	inTurn, grown := false, false
	for _, e := range rec.Frames(wire.ClientToServer, wire.ServerToClient) {
		line := e.Line
		if !wire.HasNewline(line) {
			line = append(bytes.Clone(line), '\n')
		}
		switch {
		case e.Dir == wire.ClientToServer && e.Msg.Kind == wire.KindRequest && e.Msg.Method == "turn/start":
			inTurn = s.turn == nil
		case e.Dir != wire.ServerToClient:
		case e.Msg.Kind == wire.KindResponse:
			if _, ok := s.responses[e.Msg.Method]; !ok && e.Msg.Method != "" {
				s.responses[e.Msg.Method] = line
			}
		case e.Msg.Kind != wire.KindNotification:
			// a server request: not served (nothing answers it)
		case e.Msg.Method == "item/agentMessage/delta" && s.msgDelta == nil:
			s.msgDelta = line
			fallthrough
		default:
			if e.Msg.Method == "item/commandExecution/outputDelta" {
				if s.outDelta == nil {
					s.outDelta = line
				}
				if !grown && outputSize > 0 {
					line, grown = withDelta(line, commandOutput(outputSize)), true
				}
			}
			if e.Msg.Method == "turn/completed" && inTurn {
				s.completed = line
			}
			if inTurn && e.Msg.Method != "serverRequest/resolved" {
				s.turn = append(s.turn, line)
			}
			if e.Msg.Method == "turn/completed" {
				inTurn = false
			}
		}
	}
	for _, m := range []string{"initialize", "turn/start"} {
		if s.responses[m] == nil {
			return nil, fmt.Errorf("%s: no %s response", path, m)
		}
	}
	if s.completed == nil || s.msgDelta == nil {
		return nil, fmt.Errorf("%s: no turn with message deltas and turn/completed", path)
	}
	if s.outDelta == nil {
		s.outDelta = s.msgDelta // -stream's large deltas are then message deltas
	}
	return s, nil
}

// commandOutput is about n bytes of JSON-escaped build-log-like text.
func commandOutput(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "ok  \\tgithub.com/example/project/internal/pkg%03d\\t0.%03ds\\tcoverage: %d.%d%% of statements\\n", i%1000, i%997, i%100, i%10)
	}
	return b.String()[:n]
}

// withDelta is line with params.delta's JSON string replaced by the string whose
// escaped body is text.
func withDelta(line []byte, text string) []byte {
	d := gjson.GetBytes(line, "params.delta")
	if d.Type != gjson.String || d.Index == 0 {
		return line
	}
	out := make([]byte, 0, len(line)+len(text))
	out = append(out, line[:d.Index+1]...)
	out = append(out, text...)
	return append(out, line[d.Index+len(d.Raw)-1:]...)
}

// withID is a response line with its id replaced by id (raw JSON).
func withID(line []byte, id string) []byte {
	v := gjson.GetBytes(line, "id")
	if !v.Exists() || v.Index == 0 {
		return line
	}
	out := make([]byte, 0, len(line)+len(id))
	out = append(out, line[:v.Index]...)
	out = append(out, id...)
	return append(out, line[v.Index+len(v.Raw):]...)
}

// serve answers requests until in ends. Each frame is its own write(2), as the real
// server sends them.
func (s *server) serve(in io.Reader, out io.Writer) error {
	r := wire.NewReaderSize(in, 1<<20)
	for {
		line, err := r.ReadLine()
		if len(line) > 0 {
			if werr := s.answer(line, out); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (s *server) answer(line []byte, out io.Writer) error {
	m := wire.Classify(line)
	if m.Kind != wire.KindRequest {
		return nil // notifications (initialized) and anything else need no answer
	}
	resp, ok := s.responses[m.Method]
	if !ok {
		_, err := fmt.Fprintf(out, `{"id":%s,"error":{"code":-32601,"message":"benchserver serves no %s"}}`+"\n", m.ID, jsonx.EscapeDEL.AppendString(nil, m.Method))
		return err
	}
	if _, err := out.Write(withID(resp, string(m.ID))); err != nil {
		return err
	}
	if m.Method != "turn/start" {
		return nil
	}
	if s.stream != nil {
		return s.streamTurn(out)
	}
	for _, f := range s.turn {
		if _, err := out.Write(f); err != nil {
			return err
		}
	}
	return nil
}

// streamTurn writes -stream's paced deltas, then turn/completed.
func (s *server) streamTurn(out io.Writer) error {
	st := s.stream
	var big string
	if st.bigEvery > 0 {
		big = commandOutput(st.bigSize)
	}
	next := time.Now()
	for i := 1; i <= st.n; i++ {
		for time.Now().Before(next) {
			time.Sleep(time.Until(next))
		}
		stamp := "t" + strconv.FormatInt(time.Now().UnixNano(), 10) + " "
		var f []byte
		if st.bigEvery > 0 && i%st.bigEvery == 0 {
			f = withDelta(s.outDelta, stamp+big)
		} else {
			f = withDelta(s.msgDelta, stamp)
		}
		if _, err := out.Write(f); err != nil {
			return err
		}
		next = next.Add(st.interval)
	}
	_, err := out.Write(s.completed)
	return err
}
