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
// written and the time it was due ("t<unix-ns> d<unix-ns> "), for the client to
// measure each frame's latency.
//
// With -exited FILE, the time it exits is written to FILE, for a bench that times
// what a proxy does after the server is gone.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/codexrec/codexrec/internal/jsonx"
	"github.com/codexrec/codexrec/internal/testing/benchload"
	"github.com/codexrec/codexrec/wire"
)

func main() {
	fixture := flag.String("fixture", "", "the recording to take the turn from (`FILE`, required)")
	outputKB := flag.Int("output-kb", 64, "grow the turn's first command-output delta to `N` KB (0: as recorded)")
	stream := flag.Int("stream", 0, "answer each turn/start with `N` paced deltas instead of the recorded turn")
	bigEvery := flag.Int("big-every", 100, "with -stream, every `N`th delta is a large command-output delta")
	bigKB := flag.Int("big-kb", 200, "with -stream, the large deltas' size in `KB`")
	interval := flag.Duration("interval", 200*time.Microsecond, "with -stream, the pause between deltas")
	exited := flag.String("exited", "", "when stdin ends and every answer is written, write the time (Unix ns) to `FILE` and exit")
	flag.Parse()
	if *fixture == "" {
		fmt.Fprintln(os.Stderr, "benchserver: -fixture FILE is required")
		os.Exit(2)
	}
	turn, err := benchload.Load(*fixture, *outputKB*1024)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchserver:", err)
		os.Exit(2)
	}
	s := &server{Turn: turn}
	if *stream > 0 {
		s.stream = &streamSpec{n: *stream, bigEvery: *bigEvery, bigSize: *bigKB * 1024, interval: *interval}
	}
	if err := s.serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchserver:", err)
		os.Exit(1)
	}
	if *exited != "" {
		// Written last, for a bench measuring what happens after the server's exit.
		os.WriteFile(*exited, []byte(strconv.FormatInt(time.Now().UnixNano(), 10)), 0o600)
	}
}

// server answers with a recorded turn.
type server struct {
	*benchload.Turn
	stream *streamSpec
}

type streamSpec struct {
	n, bigEvery, bigSize int
	interval             time.Duration
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
	resp, ok := s.Responses[m.Method]
	if !ok {
		_, err := fmt.Fprintf(out, `{"id":%s,"error":{"code":-32601,"message":"benchserver serves no %s"}}`+"\n", m.ID, jsonx.EscapeDEL.AppendString(nil, m.Method))
		return err
	}
	if _, err := out.Write(benchload.WithID(resp, string(m.ID))); err != nil {
		return err
	}
	if m.Method != "turn/start" {
		return nil
	}
	if s.stream != nil {
		return s.streamTurn(out)
	}
	for _, f := range s.Frames {
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
		big = benchload.CommandOutput(st.bigSize)
	}
	next := time.Now()
	for i := 1; i <= st.n; i++ {
		for time.Now().Before(next) {
			time.Sleep(time.Until(next))
		}
		// Two stamps: when the frame is written, and when it was due. A server that
		// back-pressure held up (a full pipe) writes late; counting from the due time
		// charges that wait to the path that caused it, not to nobody.
		stamp := "t" + strconv.FormatInt(time.Now().UnixNano(), 10) + " d" + strconv.FormatInt(next.UnixNano(), 10) + " "
		var f []byte
		if st.bigEvery > 0 && i%st.bigEvery == 0 {
			f = benchload.WithDelta(s.OutDelta, stamp+big)
		} else {
			f = benchload.WithDelta(s.MsgDelta, stamp)
		}
		if _, err := out.Write(f); err != nil {
			return err
		}
		next = next.Add(st.interval)
	}
	_, err := out.Write(s.Completed)
	return err
}
