package replay_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/wire"
)

// The benchmarks measure the replay against baselines taken in the same run: moving
// the same bytes through the same pipes with no replay logic. Report the ratios.
//
//	go test -run '^$' -bench . -benchtime 200x ./replay

// turnScript splits the plain capture into the client lines before its turn, the
// turn/start line, and the server lines that answer it (response to turn/completed).
func turnScript(b *testing.B) (sc *replay.Script, setup []string, turn string, answer [][]byte) {
	b.Helper()
	sc = load(b, fixture(codexbin.Newest, "plain"), 0)
	turnIdx := -1
	for i, cf := range sc.Client {
		line := string(bytes.TrimSuffix(cf.Line, []byte("\n")))
		if cf.Msg.Method == "turn/start" {
			turn, turnIdx = line, i
			break
		}
		setup = append(setup, line)
	}
	for _, sf := range sc.Server {
		if sf.Dir == wire.ServerToClient && sf.After > turnIdx {
			answer = append(answer, sf.Line)
		}
	}
	if turn == "" || len(answer) < 20 {
		b.Fatalf("the plain capture has no turn of about 30 frames (%d)", len(answer))
	}
	return sc, setup, turn, answer
}

// BenchmarkTurn: time from the client's turn/start to the last frame of its
// recorded answer (turn/completed), after start-up and handshake, at speed 0.
func BenchmarkTurn(b *testing.B) {
	sc, setup, turn, answer := turnScript(b)
	b.Run("replay", func(b *testing.B) {
		b.ReportMetric(float64(len(answer)), "frames/turn")
		b.StopTimer()
		for i := 0; i < b.N; i++ {
			s := serve(b, &replay.Server{Script: sc})
			s.send(setup...)
			s.response(gjson.Get(setup[len(setup)-1], "id").Raw)
			b.StartTimer()
			s.send(turn)
			s.notification("turn/completed")
			b.StopTimer()
			if err := s.finish(); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Baseline: a goroutine that answers the line with the same recorded bytes in
	// one write, over the same pipes and line reader, with no matching or scheduling.
	// A first exchange warms it up, as the handshake warms the replay up.
	joined := bytes.Join(answer, nil)
	b.Run("baseline-pipe-echo", func(b *testing.B) {
		b.StopTimer()
		for i := 0; i < b.N; i++ {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			c := newConn(b, inW, outR)
			go func() {
				r := wire.NewReader(inR)
				if _, err := r.ReadLine(); err != nil {
					return
				}
				outW.Write([]byte("{\"id\":0,\"result\":{}}\n"))
				if _, err := r.ReadLine(); err != nil {
					return
				}
				outW.Write(joined)
				outW.Close()
			}()
			c.send(`{"id":0,"method":"ping"}`)
			c.response(`0`)
			b.StartTimer()
			c.send(turn)
			c.notification("turn/completed")
			b.StopTimer()
			inW.Close()
		}
	})
}

// longRecording writes a recording of the plain capture's handshake followed by the
// same turn repeated until the file reaches size bytes, each copy with its own
// request id. It is built from real frames; only ids differ.
func longRecording(b *testing.B, size int64) (path string, turns int, frames int) {
	b.Helper()
	rec, err := recorder.ReadFile(fixture(codexbin.Newest, "plain"))
	if err != nil {
		b.Fatal(err)
	}
	var handshake, turn []recorder.Entry
	inTurn := false
	for _, e := range rec.Frames() {
		if e.Msg.Method == "turn/start" && e.Dir == wire.ClientToServer {
			inTurn = true
		}
		if inTurn {
			turn = append(turn, e)
		} else {
			handshake = append(handshake, e)
		}
	}
	path = filepath.Join(b.TempDir(), "long.jsonl")
	w, err := recorder.Create(path, rec.Header, recorder.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var seq int64
	write := func(e recorder.Entry, line []byte) {
		seq++
		if e.Dir == wire.ServerToClient {
			frames++
		}
		f := &wire.Frame{Seq: seq, Time: e.Time, Dir: e.Dir, Line: line, Msg: e.Msg}
		if err := w.WriteFrame(f); err != nil {
			b.Fatal(err)
		}
	}
	for _, e := range handshake {
		write(e, e.Line)
	}
	for {
		if fi, err := os.Stat(w.TempPath()); err == nil && fi.Size() >= size {
			break
		}
		id := strconv.Itoa(1000 + turns)
		for _, e := range turn {
			line, msg := e.Line, e.Msg
			if msg.ID == "2" { // the turn/start request and its response
				line = bytes.Replace(line, []byte(`"id":2,`), []byte(`"id":`+id+`,`), 1)
				msg.ID = wire.ID(id)
			}
			write(recorder.Entry{Time: e.Time, Dir: e.Dir, Msg: msg}, line)
		}
		turns++
		if turns%64 == 0 {
			w.Flush()
		}
	}
	if err := w.Close(recorder.Trailer{Ended: recorder.EndClientEOF}); err != nil {
		b.Fatal(err)
	}
	return path, turns, frames
}

// clientInput is a script's client lines, as one pipelined stream.
func clientInput(sc *replay.Script) []byte {
	var in []byte
	for _, cf := range sc.Client {
		in = append(in, cf.Line...)
	}
	return in
}

// BenchmarkServeLong: server frames per second over a long recording served whole
// to a client that sends all its lines at once.
func BenchmarkServeLong(b *testing.B) {
	path, turns, frames := longRecording(b, 10<<20)
	sc := load(b, path, 0)
	in := clientInput(sc)
	var out []byte
	for _, sf := range sc.Server {
		if sf.Dir == wire.ServerToClient {
			out = append(out, sf.Line...)
		}
	}
	b.Logf("%d turns, %d server frames, %d MB", turns, frames, len(out)>>20)
	b.Run("replay", func(b *testing.B) {
		b.SetBytes(int64(len(out)))
		start := time.Now()
		for i := 0; i < b.N; i++ {
			// Placeholders kept: the bytes served are the recording's, to be counted.
			srv := &replay.Server{Script: sc, KeepPlaceholders: true}
			outR, outW := io.Pipe()
			done := make(chan int64)
			go func() { n, _ := io.Copy(io.Discard, outR); done <- n }()
			if err := srv.Serve(context.Background(), bytes.NewReader(in), outW); err != nil {
				b.Fatal(err)
			}
			outW.Close()
			if n := <-done; n != int64(len(out)) {
				b.Fatalf("served %d bytes, the recording has %d", n, len(out))
			}
		}
		b.ReportMetric(float64(frames*b.N)/time.Since(start).Seconds(), "frames/s")
	})
	b.Run("baseline-copy", func(b *testing.B) {
		b.SetBytes(int64(len(out)))
		start := time.Now()
		for i := 0; i < b.N; i++ {
			outR, outW := io.Pipe()
			done := make(chan int64)
			go func() { n, _ := io.Copy(io.Discard, outR); done <- n }()
			// The same writes a server does: every frame through a 64 KiB buffer.
			bw := bufio.NewWriterSize(outW, 64<<10)
			for _, sf := range sc.Server {
				if sf.Dir == wire.ServerToClient {
					bw.Write(sf.Line)
				}
			}
			bw.Flush()
			outW.Close()
			<-done
		}
		b.ReportMetric(float64(frames*b.N)/time.Since(start).Seconds(), "frames/s")
	})
}

// BenchmarkLoad: start-up, loading and indexing a 10 MB recording, against the
// recorder's reader reading the same file. cpu-ms/op is the process's CPU time per
// load (all threads, GC included), which a busy machine inflates less than ns/op.
func BenchmarkLoad(b *testing.B) {
	path, _, _ := longRecording(b, 10<<20)
	fi, _ := os.Stat(path)
	b.Run("replay-load", func(b *testing.B) {
		b.SetBytes(fi.Size())
		cpu := cpuTime()
		for i := 0; i < b.N; i++ {
			if _, err := replay.LoadFile(path, 0); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cpuTime()-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	})
	b.Run("baseline-recorder-readfile", func(b *testing.B) {
		b.SetBytes(fi.Size())
		cpu := cpuTime()
		for i := 0; i < b.N; i++ {
			if _, err := recorder.ReadFile(path); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cpuTime()-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	})
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSession: a whole recorded session (handshake and one ~30-frame turn) served
// to a client that sends everything at once, with no pipes: the replay's own cost,
// against reading the same client lines and writing the same server bytes.
func BenchmarkSession(b *testing.B) {
	sc := load(b, fixture(codexbin.Newest, "plain"), 0)
	in := clientInput(sc)
	b.Run("replay", func(b *testing.B) {
		cpu := cpuTime()
		for i := 0; i < b.N; i++ {
			srv := &replay.Server{Script: sc}
			if err := srv.Serve(context.Background(), bytes.NewReader(in), io.Discard); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cpuTime()-cpu)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
	})
	b.Run("baseline-read-write", func(b *testing.B) {
		cpu := cpuTime()
		defer func() {
			b.ReportMetric(float64(cpuTime()-cpu)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
		}()
		for i := 0; i < b.N; i++ {
			r := wire.NewReader(bytes.NewReader(in))
			for {
				line, err := r.ReadLine()
				if err != nil {
					break
				}
				wire.Classify(line)
			}
			bw := bufio.NewWriterSize(io.Discard, 64<<10)
			for _, sf := range sc.Server {
				if sf.Dir == wire.ServerToClient {
					bw.Write(sf.Line)
				}
			}
			bw.Flush()
		}
	})
}
