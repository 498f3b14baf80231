package schema_test

import (
	"bytes"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/codexrec/codexrec/internal/jsonschema"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/testing/benchload"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/wire"
)

var benchFrames []wire.Frame

// benchSession is the real traffic mix: every frame of the newest version's captured
// fixtures (made by codexrec capture from the real binary), or, when they are absent,
// one real session made now.
func benchSession(b *testing.B) []wire.Frame {
	b.Helper()
	if benchFrames != nil {
		return benchFrames
	}
	paths, _ := filepath.Glob(filepath.Join("..", "fixtures", "hermetic", codexbin.Newest, "*.jsonl"))
	for _, p := range paths {
		rec, err := recorder.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range rec.Frames(wire.ClientToServer, wire.ServerToClient) {
			benchFrames = append(benchFrames, wire.Frame{Seq: int64(len(benchFrames) + 1), Dir: e.Dir, Line: e.Line})
		}
	}
	if benchFrames == nil {
		benchFrames = realSession(b, codexbin.Newest, false)
	}
	return benchFrames
}

func only(frames []wire.Frame, method string) []wire.Frame {
	var out []wire.Frame
	for _, f := range frames {
		if wire.Classify(f.Line).Method == method {
			out = append(out, f)
		}
	}
	return out
}

// checkLoop validates frames b.N times over with one warm validator and reports
// messages per second.
func checkLoop(b *testing.B, frames []wire.Frame) {
	set, err := schema.Load(codexbin.Newest)
	if err != nil {
		b.Fatal(err)
	}
	v := schema.NewValidator(set)
	findings := 0
	for i := range frames { // warm: compile every route once
		findings += len(v.Check(&frames[i]))
	}
	if findings > 0 {
		b.Logf("%d findings in the warm-up pass", findings)
	}
	var size int64
	for _, f := range frames {
		size += int64(len(f.Line))
	}
	b.SetBytes(size / int64(len(frames)))
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		f := &frames[i%len(frames)]
		v.Check(f)
	}
	reportRates(b, cpu0)
}

// reportRates reports messages per second of wall time and per second of this
// process's CPU time: on a shared machine the second is the per-core figure.
func reportRates(b *testing.B, cpu0 time.Duration) {
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msg/s")
	if cpu > 0 {
		b.ReportMetric(float64(b.N)/cpu.Seconds(), "msg/cpu-s")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCheck: messages per second, single goroutine, on the real traffic mix of a
// session and on its small notifications alone; Classify and decode are baselines of
// the per-frame work the proxy and a JSON decoder do anyway.
func BenchmarkCheck(b *testing.B) {
	schema.SetCrossCheck(false)
	defer schema.SetCrossCheck(true)
	frames := benchSession(b)
	deltas := only(frames, "item/agentMessage/delta")
	if len(deltas) == 0 {
		b.Fatal("session has no deltas")
	}
	b.Run("mix", func(b *testing.B) { checkLoop(b, frames) })
	b.Run("deltas", func(b *testing.B) { checkLoop(b, deltas) })
	b.Run("baseline-classify-deltas", func(b *testing.B) {
		cpu0 := cpuTime()
		for i := 0; i < b.N; i++ {
			wire.Classify(deltas[i%len(deltas)].Line)
		}
		reportRates(b, cpu0)
	})
	b.Run("baseline-decode-deltas", func(b *testing.B) {
		cpu0 := cpuTime()
		for i := 0; i < b.N; i++ {
			jsonschema.UnmarshalJSON(bytes.NewReader(deltas[i%len(deltas)].Line))
		}
		reportRates(b, cpu0)
	})
	b.Run("baseline-classify-mix", func(b *testing.B) {
		cpu0 := cpuTime()
		for i := 0; i < b.N; i++ {
			wire.Classify(frames[i%len(frames)].Line)
		}
		reportRates(b, cpu0)
	})
	b.Run("baseline-decode-mix", func(b *testing.B) {
		cpu0 := cpuTime()
		for i := 0; i < b.N; i++ {
			jsonschema.UnmarshalJSON(bytes.NewReader(frames[i%len(frames)].Line))
		}
		reportRates(b, cpu0)
	})
}

// BenchmarkLoad is the one-time cost of a version: opening its sets and deriving the
// method table (Load), and Load plus checking a whole first session, which compiles
// every route that session needs (cold).
func BenchmarkLoad(b *testing.B) {
	schema.SetCrossCheck(false)
	defer schema.SetCrossCheck(true)
	b.Run("load", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := schema.Load(codexbin.Newest); err != nil {
				b.Fatal(err)
			}
		}
	})
	frames := benchSession(b)
	b.Run("load+first-session", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			set, err := schema.Load(codexbin.Newest)
			if err != nil {
				b.Fatal(err)
			}
			v := schema.NewValidator(set)
			for j := range frames {
				v.Check(&frames[j])
			}
		}
	})
}

// bulkTurn is the bulk bench's turn (internal/testing/benchserver): a turn/start
// request, its response and the turn's notifications, the first command-output
// delta grown to 64 KB.
func bulkTurn(b testing.TB) []wire.Frame {
	turn, err := benchload.Load(filepath.Join("..", "fixtures", "hermetic", "0.171.0", "approval-accept.jsonl"), 64<<10)
	if err != nil {
		b.Fatal(err)
	}
	req := []byte(`{"id":2,"jsonrpc":"2.0","method":"turn/start","params":{"input":[{"text":"Print a greeting with echo.","type":"text"}],"threadId":"01a226fa-5ad0-7210-8202-b6b8e14b6ed2"}}` + "\n")
	frames := []wire.Frame{{Seq: 1, Dir: wire.ClientToServer, Line: req}, {Seq: 2, Dir: wire.ServerToClient, Line: benchload.WithID(turn.Responses["turn/start"], "2")}}
	for _, l := range turn.Frames {
		frames = append(frames, wire.Frame{Seq: int64(len(frames) + 1), Dir: wire.ServerToClient, Line: l})
	}
	return frames
}

// BenchmarkCheckBulk checks the bulk bench's turn, request to turn/completed, once
// per iteration with one warm validator: the tap's validation cost per turn.
func BenchmarkCheckBulk(b *testing.B) {
	schema.SetCrossCheck(false)
	defer schema.SetCrossCheck(true)
	frames := bulkTurn(b)
	set, err := schema.Load("0.171.0")
	if err != nil {
		b.Fatal(err)
	}
	v := schema.NewValidator(set)
	var size int64
	for i := range frames {
		if fs := v.Check(&frames[i]); len(fs) > 0 {
			b.Fatalf("frame %d: %v", i, fs)
		}
		size += int64(len(frames[i].Line))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range frames {
			v.Check(&frames[j])
		}
	}
}
