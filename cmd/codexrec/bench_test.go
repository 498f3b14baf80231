package main_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/recorder"
)

// trafficMix is app-server-like traffic: mostly small notifications and deltas, and
// one 200 KB command output delta in every 100 messages, shaped as 0.171.0 sends
// them (they validate clean). Echoed back by cat they also travel client to server,
// where validation reports them as unknown client methods.
func trafficMix() (data []byte, msgs int) {
	rng := rand.New(rand.NewPCG(7, 7))
	var b bytes.Buffer
	for i := range 1000 {
		switch {
		case i%100 == 99:
			out := strings.Repeat("output line of a long-running command\\n", 200_000/40)
			fmt.Fprintf(&b, `{"method":"item/commandExecution/outputDelta","params":{"threadId":"01a226dd-027d-7b30-b455-5b5bc11ec58d","turnId":"01a226dd-1111-7b30-b455-5b5bc11ec58d","itemId":"call_%d","delta":"%s"},"emittedAtMs":1795948348018}`+"\n", i, out)
		case i%3 == 0:
			fmt.Fprintf(&b, `{"method":"item/agentMessage/delta","params":{"threadId":"01a226dd-027d-7b30-b455-5b5bc11ec58d","turnId":"01a226dd-1111-7b30-b455-5b5bc11ec58d","itemId":"msg_%d","delta":"word%d "},"emittedAtMs":1795948348018}`+"\n", i, rng.IntN(1000))
		default:
			fmt.Fprintf(&b, `{"method":"thread/tokenUsage/updated","params":{"threadId":"01a226dd-027d-7b30-b455-5b5bc11ec58d","turnId":"01a226dd-1111-7b30-b455-5b5bc11ec58d","tokenUsage":{"total":{"totalTokens":%d,"inputTokens":100,"cachedInputTokens":0,"cacheWriteInputTokens":0,"outputTokens":10,"reasoningOutputTokens":0},"last":{"totalTokens":110,"inputTokens":100,"cachedInputTokens":0,"cacheWriteInputTokens":0,"outputTokens":10,"reasoningOutputTokens":0},"modelContextWindow":258400}},"emittedAtMs":1795948348018}`+"\n", rng.IntN(100000))
		}
		msgs++
	}
	return b.Bytes(), msgs
}

// pipeCommand is the process under test: a bare cat, cat under codexrec record with
// only the recorder (record-plain), or with the default validation and sanitizing.
func pipeCommand(b *testing.B, mode string) (*exec.Cmd, string) {
	out := filepath.Join(b.TempDir(), "bench.jsonl")
	switch mode {
	case "cat":
		return exec.Command("cat"), ""
	case "record-plain":
		return exec.Command(codexrecBin, "record", "--no-validate", "--no-sanitize", "--force", "-o", out, "--", "cat"), out
	case "record":
		return exec.Command(codexrecBin, "record", "--force", "-o", out, "--", "cat"), out
	}
	b.Fatalf("unknown mode %s", mode)
	return nil, ""
}

// BenchmarkPipe pushes the traffic mix through a bare cat and through
// `codexrec record -- cat` in the same run; scripts/bench.sh turns the figures into
// ratios. Each op is one pass of the 1000-message mix (2.2 MB). cpu-ms/op is the
// process's user+system time, steadier than wall time on a shared machine.
func BenchmarkPipe(b *testing.B) {
	data, msgs := trafficMix()
	for _, mode := range []string{"cat", "record-plain", "record"} {
		b.Run(mode+"/throughput", func(b *testing.B) {
			cmd, recPath := pipeCommand(b, mode)
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			b.ResetTimer()
			go func() {
				for range b.N {
					stdin.Write(data)
				}
				stdin.Close()
			}()
			// The clock stops when the last byte is back: that is forwarding throughput.
			// What the recorder does after the session (the leak guard's scan of the
			// finished file) shows in cpu-ms/op instead.
			n, err := io.CopyN(io.Discard, stdout, int64(len(data)*b.N))
			b.StopTimer()
			if err != nil {
				b.Fatalf("got %d bytes back, want %d (%v)", n, len(data)*b.N, err)
			}
			if extra, _ := io.Copy(io.Discard, stdout); extra != 0 {
				b.Fatalf("%d bytes more than were sent", extra)
			}
			if err := cmd.Wait(); err != nil {
				b.Fatal(err)
			}
			ps := cmd.ProcessState
			b.ReportMetric(float64(msgs*b.N)/b.Elapsed().Seconds(), "msgs/s")
			b.ReportMetric(float64((ps.UserTime()+ps.SystemTime()).Microseconds())/1000/float64(b.N), "cpu-ms/op")
			if recPath != "" {
				assertNoFrameLost(b, recPath, int64(msgs*b.N))
			}
		})
	}
}

// relays builds the reference relays of testdata: relay-go (two copy loops, the
// floor for a proxy written in Go) and, when a C compiler is at hand, relay-c (poll,
// read, write: the floor for any process in the middle). It returns the modes built
// and their commands.
func relays(b *testing.B) (modes []string, cmds map[string][]string) {
	dir := b.TempDir()
	cmds = map[string][]string{}
	if cc, err := exec.LookPath("cc"); err == nil {
		bin := filepath.Join(dir, "relay-c")
		if out, err := exec.Command(cc, "-O2", "-o", bin, filepath.Join("testdata", "relay.c")).CombinedOutput(); err != nil {
			b.Logf("relay-c not built: %v\n%s", err, out)
		} else {
			modes, cmds["relay-c"] = append(modes, "relay-c"), []string{bin, "cat"}
		}
	}
	bin := filepath.Join(dir, "relay-go")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/relay").CombinedOutput(); err != nil {
		b.Fatalf("building relay-go: %v\n%s", err, out)
	}
	modes, cmds["relay-go"] = append(modes, "relay-go"), []string{bin, "cat"}
	return modes, cmds
}

// BenchmarkRoundTrip sends one request at a time through a bare cat, through the
// reference relays (see relays), through `codexrec record --no-validate --no-sanitize
// -- cat` and through `codexrec record -- cat`, alternating between them request by
// request, so that load on a shared machine hits all of them alike. It reports each
// one's median round trip, and its ratio to cat's and to relay-go's.
func BenchmarkRoundTrip(b *testing.B) {
	refModes, refCmds := relays(b)
	modes := append(append([]string{"cat"}, refModes...), "record-plain", "record")
	type pipe struct {
		cmd  *exec.Cmd
		in   io.WriteCloser
		out  *bufio.Reader
		rtts []time.Duration
	}
	pipes := make([]*pipe, len(modes))
	for i, mode := range modes {
		var cmd *exec.Cmd
		if argv, ok := refCmds[mode]; ok {
			cmd = exec.Command(argv[0], argv[1:]...)
		} else {
			cmd, _ = pipeCommand(b, mode)
		}
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		pipes[i] = &pipe{cmd: cmd, in: in, out: bufio.NewReader(out), rtts: make([]time.Duration, 0, b.N)}
	}
	line := []byte(`{"id":1,"method":"thread/start","params":{}}` + "\n")
	b.ResetTimer()
	for range b.N {
		for _, p := range pipes {
			t0 := time.Now()
			p.in.Write(line)
			if _, err := p.out.ReadSlice('\n'); err != nil {
				b.Fatal(err)
			}
			p.rtts = append(p.rtts, time.Since(t0))
		}
	}
	b.StopTimer()
	p50 := map[string]time.Duration{}
	for i, p := range pipes {
		p.in.Close()
		p.cmd.Wait()
		slices.Sort(p.rtts)
		p50[modes[i]] = p.rtts[len(p.rtts)/2]
		b.ReportMetric(float64(p50[modes[i]].Nanoseconds())/1000, modes[i]+"-p50-µs")
	}
	for _, m := range modes[1:] {
		b.ReportMetric(float64(p50[m])/float64(p50["cat"]), m+"/cat")
	}
	for _, m := range []string{"record-plain", "record"} {
		b.ReportMetric(float64(p50[m])/float64(p50["relay-go"]), m+"/relay-go")
	}
}

func assertNoFrameLost(b *testing.B, path string, want int64) {
	rec, err := recorder.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	if tr := rec.Trailer; tr == nil || tr.Frames["c2s"] != want || tr.Frames["s2c"] != want {
		b.Fatalf("recording lost frames: trailer %+v, want %d each way", rec.Trailer, want)
	}
}
