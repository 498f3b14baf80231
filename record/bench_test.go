package record_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/codexrec/codexrec/internal/testing/benchload"
	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/wire"
)

// BenchmarkSession pushes the benchmarks' realistic load (internal/testing/benchload: a real
// 0.171.0 turn, 24 frames, 75 KB with a 64 KB command-output delta) through
// Session.Frame as the proxy's tap goroutine does (classified and paired), one turn
// per op, in each mode of `codexrec record`: the writer alone (plain), with
// validation, with sanitizing, and both (defaults; the leak guard's scan at Finish
// is outside the timing). It is the benchmark to profile the record pipeline with:
//
//	go test -run '^$' -bench 'Session/defaults' -cpuprofile cpu.out ./record
func BenchmarkSession(b *testing.B) {
	turn, err := benchload.Load("../fixtures/hermetic/0.171.0/approval-accept.jsonl", 64<<10)
	if err != nil {
		b.Fatal(err)
	}
	z, err := sanitize.New(sanitize.Options{Maps: sanitize.DefaultMaps("/work/project", func(string) string { return "" })})
	if err != nil {
		b.Fatal(err)
	}
	turnBytes := 0
	for _, f := range turn.Frames {
		turnBytes += len(f)
	}
	for _, mode := range []string{"plain", "validate", "sanitize", "defaults"} {
		b.Run(mode, func(b *testing.B) {
			s := &record.Session{}
			if mode == "validate" || mode == "defaults" {
				s.Validator = &schema.SessionValidator{Classified: true}
			}
			if mode == "sanitize" || mode == "defaults" {
				s.Sanitizer = z
			}
			path := filepath.Join(b.TempDir(), "bench.jsonl")
			if err := s.Create(path, recorder.Header{Command: []string{"benchserver"}}, recorder.Options{}); err != nil {
				b.Fatal(err)
			}
			var (
				pairer wire.Pairer
				seq    int64
				start  = time.Now()
			)
			frame := func(dir wire.Direction, line []byte) {
				seq++
				f := wire.Frame{Seq: seq, Time: time.Since(start), Dir: dir, Line: line, Msg: wire.Classify(line)}
				pairer.Observe(dir, &f.Msg)
				if err := s.Frame(&f); err != nil {
					b.Fatal(err)
				}
			}
			frame(wire.ClientToServer, []byte(`{"id":0,"jsonrpc":"2.0","method":"initialize","params":{"clientInfo":{"name":"bench","title":"bench","version":"1"}}}`+"\n"))
			frame(wire.ServerToClient, benchload.WithID(turn.Responses["initialize"], "0"))
			frame(wire.ClientToServer, []byte(`{"jsonrpc":"2.0","method":"initialized"}`+"\n"))
			b.SetBytes(int64(turnBytes))
			b.ResetTimer()
			for i := range b.N {
				id := fmt.Sprint(i + 1)
				frame(wire.ClientToServer, []byte(`{"id":`+id+`,"jsonrpc":"2.0","method":"turn/start","params":{"input":[{"text":"Print a greeting with echo.","type":"text"}],"threadId":"01a226fa-5ad0-7210-8202-b6b8e14b6ed2"}}`+"\n"))
				frame(wire.ServerToClient, benchload.WithID(turn.Responses["turn/start"], id))
				for _, f := range turn.Frames {
					frame(wire.ServerToClient, f)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N*(len(turn.Frames)+2))/b.Elapsed().Seconds(), "frames/s")
			if _, err := s.Finish(recorder.Trailer{Ended: recorder.EndClientEOF}); err != nil {
				b.Fatal(err)
			}
			os.Remove(path)
		})
	}
}

// BenchmarkSessionGuard is BenchmarkSession with the leak guard, whose work is timed
// to the end of Finish (the follower checks as the session goes; Finish waits for
// what it has left): plain (the guard checks every byte: its sanitizer's pass, and
// its scan on a goroutine of its own) and defaults (the sanitizer is the guard's: the
// guard checks what the sanitizer did not write). On a shared machine the figure to
// compare is the CPU time (go test -cpuprofile, or -benchtime with /usr/bin/time).
func BenchmarkSessionGuard(b *testing.B) {
	turn, err := benchload.Load("../fixtures/hermetic/0.171.0/approval-accept.jsonl", 64<<10)
	if err != nil {
		b.Fatal(err)
	}
	turnBytes := 0
	for _, f := range turn.Frames {
		turnBytes += len(f)
	}
	for _, mode := range []string{"plain", "defaults"} {
		b.Run(mode, func(b *testing.B) {
			z, err := sanitize.New(sanitize.Options{})
			if err != nil {
				b.Fatal(err)
			}
			s := &record.Session{Guard: z}
			if mode == "defaults" {
				s.Validator, s.Sanitizer = &schema.SessionValidator{Classified: true}, z
			}
			path := filepath.Join(b.TempDir(), "bench.jsonl")
			if err := s.Create(path, recorder.Header{Command: []string{"benchserver"}}, recorder.Options{}); err != nil {
				b.Fatal(err)
			}
			var (
				pairer wire.Pairer
				seq    int64
				start  = time.Now()
			)
			frame := func(dir wire.Direction, line []byte) {
				seq++
				f := wire.Frame{Seq: seq, Time: time.Since(start), Dir: dir, Line: line, Msg: wire.Classify(line)}
				pairer.Observe(dir, &f.Msg)
				if err := s.Frame(&f); err != nil {
					b.Fatal(err)
				}
			}
			frame(wire.ClientToServer, []byte(`{"id":0,"jsonrpc":"2.0","method":"initialize","params":{"clientInfo":{"name":"bench","title":"bench","version":"1"}}}`+"\n"))
			frame(wire.ServerToClient, benchload.WithID(turn.Responses["initialize"], "0"))
			b.SetBytes(int64(turnBytes))
			b.ResetTimer()
			for i := range b.N {
				id := fmt.Sprint(i + 1)
				frame(wire.ClientToServer, []byte(`{"id":`+id+`,"jsonrpc":"2.0","method":"turn/start","params":{"input":[{"text":"Print a greeting with echo.","type":"text"}],"threadId":"01a226fa-5ad0-7210-8202-b6b8e14b6ed2"}}`+"\n"))
				frame(wire.ServerToClient, benchload.WithID(turn.Responses["turn/start"], id))
				for _, f := range turn.Frames {
					frame(wire.ServerToClient, f)
				}
				if i%16 == 15 {
					s.Writer.Flush() // as the proxy's Idle does when the tap catches up
				}
			}
			if _, err := s.Finish(recorder.Trailer{Ended: recorder.EndClientEOF}); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			os.Remove(path)
		})
	}
}
