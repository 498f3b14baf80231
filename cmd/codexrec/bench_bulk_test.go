package main_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The bulk bench: a client that sends many turn/start at once, closes its stdin after
// the last one and reads the streamed turns to EOF, as a test suite driving Codex
// does. internal/benchserver answers each with the recorded turn (75 KB) and exits
// when its stdin ends. Each path runs the same session in turn; throughput is the
// bytes read per second from the first request to EOF, reported as a ratio to the
// server alone by scripts/bench.sh. For the record paths the bench also times what
// is left after the server: from its exit to the client's EOF, and to codexrec's exit.

// bulkModes are codexrec record's modes, by the flags that make them. bare (every
// stage off, the leak guard too) is the floor of recording itself: the base, which
// may predate the flag, does not run it.
var bulkModes = []struct {
	name, flags string
	noBase      bool
}{
	{"plain", "--no-validate --no-sanitize", false},
	{"validate", "--no-sanitize", false},
	{"sanitize", "--no-validate", false},
	{"defaults", "", false},
	{"bare", "--no-validate --no-sanitize --no-leak-guard", true},
}

// bulkPaths are the paths of the bulk bench: the server alone, the C relay, the C
// relay writing what it forwards to a file too (tee-c: what writing a recording
// costs the simplest proxy), each record mode, and with CODEXREC_BASE each record
// mode of the base build.
func bulkPaths() []string {
	if p := os.Getenv("BENCH_PATHS"); p != "" {
		return strings.Split(p, ",")
	}
	paths := []string{"server", "relay-c", "tee-c"}
	for _, m := range bulkModes {
		paths = append(paths, m.name)
	}
	if os.Getenv("CODEXREC_BASE") != "" {
		for _, m := range bulkModes {
			if !m.noBase {
				paths = append(paths, "base-"+m.name)
			}
		}
	}
	return paths
}

// bulkArgv is the command line of path around the server argv.
func bulkArgv(b *testing.B, path, relay, rec string, server []string) []string {
	switch path {
	case "server":
		return server
	case "relay-c":
		return append([]string{relay}, server...)
	case "tee-c":
		return append([]string{relay, "-o", rec}, server...)
	}
	bin, mode := codexrecBin, path
	if m, ok := strings.CutPrefix(path, "base-"); ok {
		bin, mode = os.Getenv("CODEXREC_BASE"), m
	}
	for _, m := range bulkModes {
		if m.name == mode {
			argv := append([]string{bin, "record", "--force", "-o", rec}, strings.Fields(m.flags)...)
			return append(append(argv, "--"), server...)
		}
	}
	b.Fatalf("unknown path %s", path)
	return nil
}

// bulkInput is a session of n pipelined turns.
func bulkInput(n int) []byte {
	var in bytes.Buffer
	in.WriteString(`{"id":0,"jsonrpc":"2.0","method":"initialize","params":{"clientInfo":{"name":"codexrec-bench","title":"codexrec bench","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"initialized"}` + "\n")
	in.WriteString(`{"id":1,"jsonrpc":"2.0","method":"thread/start","params":{"approvalPolicy":"never","cwd":"/tmp","sandbox":"read-only"}}` + "\n")
	for i := range n {
		fmt.Fprintf(&in, `{"id":%d,"jsonrpc":"2.0","method":"turn/start","params":{"input":[{"text":"Print a greeting with echo.","type":"text"}],"threadId":"01a226fa-5ad0-7210-8202-b6b8e14b6ed2"}}`+"\n", i+2)
	}
	return in.Bytes()
}

// bulkRun is one bulk session along one path.
type bulkRun struct {
	bytes, frames  int64
	tput           time.Duration // first request to EOF
	toEOF, toExit  time.Duration // the server's exit to the client's EOF, to the process's exit
	recordedFrames int64
}

// runBulk runs one session along argv; rec is the file it writes (removed after),
// a recording whose trailer must count every frame when trailer is set.
func runBulk(b *testing.B, argv []string, input []byte, exited, rec string, trailer bool) bulkRun {
	os.Remove(exited)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = io.Discard
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	if f, ok := out.(*os.File); ok {
		growPipe(f)
	}
	go func() {
		in.Write(input)
		in.Close()
	}()
	var r bulkRun
	br := bufio.NewReaderSize(out, 4<<20)
	for {
		line, err := br.ReadSlice('\n')
		r.bytes += int64(len(line))
		if err == nil {
			r.frames++
			continue
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != io.EOF {
			b.Fatalf("%s: reading: %v", argv[0], err)
		}
		break
	}
	eof := time.Now()
	r.tput = eof.Sub(t0)
	if err := cmd.Wait(); err != nil {
		b.Fatalf("%s: %v", strings.Join(argv, " "), err)
	}
	end := time.Now()
	if stamp, err := os.ReadFile(exited); err == nil {
		ns, _ := strconv.ParseInt(string(stamp), 10, 64)
		at := time.Unix(0, ns)
		r.toEOF, r.toExit = eof.Sub(at), end.Sub(at)
	}
	if rec != "" && trailer {
		assertTrailer(b, strings.Join(argv[:min(len(argv), 7)], " "), rec, int64(bytes.Count(input, []byte("\n"))), r.frames)
	}
	if rec != "" {
		os.Remove(rec)
	}
	return r
}

// busyLoops starts one busy loop per CPU (contention, as on a shared CI runner) and
// returns the func that stops them.
func busyLoops(b *testing.B) func() {
	var cmds []*exec.Cmd
	for range runtime.NumCPU() {
		c := exec.Command("sh", "-c", "while :; do :; done")
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	return func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
	}
}

// benchRounds counts the benches' rounds across their runs (make bench runs each
// -count times; bulk runs one round each), so each round orders the paths anew.
var benchRounds uint64

// benchOrder is the order of the paths in round r: each path next to its base
// build's twin (twin names it, "" for none; which one goes first alternates with
// r), the pairs and the other paths shuffled (seeded by r). A fixed or rotating
// order gives each path the same predecessor every round, whose leftover work (a
// recorder's stage finishing a burst) it then pays for: the base's plain path
// always ran right after the current build's defaults. And bulk, one round per
// run, never rotated at all.
func benchOrder(paths []string, twin func(string) string, r uint64) []string {
	var units [][]string
	for _, p := range paths {
		switch t := twin(p); {
		case slices.ContainsFunc(paths, func(q string) bool { return twin(q) == p }):
			continue // a twin, paired with its path below
		case t == "" || !slices.Contains(paths, t):
			units = append(units, []string{p})
		case r%2 == 0:
			units = append(units, []string{p, t})
		default:
			units = append(units, []string{t, p})
		}
	}
	rand.New(rand.NewPCG(r, 0x62756c6b)).Shuffle(len(units), func(i, j int) { units[i], units[j] = units[j], units[i] })
	return slices.Concat(units...)
}

// bulkTwin is a bulk path's base twin: plain's is base-plain.
func bulkTwin(p string) string {
	if strings.HasPrefix(p, "base-") {
		return ""
	}
	return "base-" + p
}

// BenchmarkBulk runs b.N rounds; in each, every path in turn (benchOrder)
// runs a session of BENCH_TURNS pipelined turns (default 1350, about 100 MB), quiet and then
// (BENCH_BUSY=0 leaves it out) with a busy loop per CPU. Reported per path and
// shape: MB/s; per record path, the median time from the server's exit to the
// client's EOF and to codexrec's exit. Every recording's trailer must count every
// frame, and every path must deliver as many bytes as the server alone.
func BenchmarkBulk(b *testing.B) {
	server, relay := buildBenchTools(b)
	dir := b.TempDir()
	exited := filepath.Join(dir, "exited")
	argv := []string{server, "-fixture", turnFixture, "-exited", exited}
	input := bulkInput(envInt("BENCH_TURNS", 1350))
	var paths []string
	for _, p := range bulkPaths() {
		if !strings.HasSuffix(p, "-c") || relay != "" {
			paths = append(paths, p)
		}
	}
	shapes := []string{"quiet", "busy"}
	if os.Getenv("BENCH_BUSY") == "0" {
		shapes = shapes[:1]
	}
	type key struct{ path, shape string }
	tput := map[key][]float64{}
	toEOF, toExit := map[string][]time.Duration{}, map[string][]time.Duration{}
	var want int64
	b.ResetTimer()
	for range b.N {
		order := benchOrder(paths, bulkTwin, benchRounds)
		benchRounds++
		for _, shape := range shapes {
			stop := func() {}
			if shape == "busy" {
				stop = busyLoops(b)
			}
			for _, p := range order {
				rec := ""
				if p != "server" && p != "relay-c" {
					rec = filepath.Join(dir, "bulk.jsonl")
				}
				res := runBulk(b, bulkArgv(b, p, relay, rec, argv), input, exited, rec, p != "tee-c")
				if want == 0 {
					want = res.bytes
				}
				if res.bytes != want {
					b.Fatalf("%s delivered %d bytes, another path %d", p, res.bytes, want)
				}
				tput[key{p, shape}] = append(tput[key{p, shape}], float64(res.bytes)/res.tput.Seconds()/1e6)
				if rec != "" && shape == "quiet" {
					toEOF[p] = append(toEOF[p], res.toEOF)
					toExit[p] = append(toExit[p], res.toExit)
				}
			}
			stop()
		}
	}
	b.StopTimer()
	for _, p := range paths {
		for _, shape := range shapes {
			v := tput[key{p, shape}]
			sum := 0.0
			for _, x := range v {
				sum += x
			}
			b.ReportMetric(sum/float64(len(v)), p+"-"+shape+"-MB/s")
		}
		if d := toEOF[p]; len(d) > 0 {
			b.ReportMetric(float64(percentile(d, 0.5).Microseconds())/1000, p+"-exit-to-eof-ms")
			b.ReportMetric(float64(percentile(toExit[p], 0.5).Microseconds())/1000, p+"-exit-to-exit-ms")
		}
	}
	b.ReportMetric(float64(want)/1e6, "session-MB")
	b.ReportMetric(0, "frames-lost")
}

// TestBenchOrder: every path runs once a round, each mode beside its base build's
// (the base first in odd rounds), and consecutive rounds do not repeat an order.
func TestBenchOrder(t *testing.T) {
	paths := []string{"server", "relay-c", "tee-c", "plain", "validate", "bare", "base-plain", "base-validate"}
	seen := map[string]bool{}
	for r := range uint64(6) {
		order := benchOrder(paths, bulkTwin, r)
		if !slices.Equal(slices.Sorted(slices.Values(order)), slices.Sorted(slices.Values(paths))) {
			t.Fatalf("round %d: %q is not a permutation of %q", r, order, paths)
		}
		for _, m := range []string{"plain", "validate"} {
			i, j := slices.Index(order, m), slices.Index(order, "base-"+m)
			if want := map[bool]int{true: 1, false: -1}[r%2 == 0]; j-i != want {
				t.Errorf("round %d: %s at %d, base-%s at %d in %q", r, m, i, m, j, order)
			}
		}
		seen[strings.Join(order, " ")] = true
	}
	if len(seen) < 5 {
		t.Errorf("%d distinct orders in 6 rounds", len(seen))
	}
	turn := benchOrder(turnPathsWithBase, turnTwin, 1)
	if i := slices.Index(turn, "record-plain"); i < 1 || turn[i-1] != "base-plain" || len(turn) != len(turnPathsWithBase) {
		t.Errorf("turn order %q", turn)
	}
}
