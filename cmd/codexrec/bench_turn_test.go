package main_test

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/recorder"
)

// The realistic bench: internal/testing/benchserver answers each turn/start with a real 0.171.0
// turn from a committed fixture (24 frames, 75 KB, a 64 KB command-output delta in
// it), and the client below drives it directly, behind the C relay, and behind
// `codexrec record` plain and with defaults, alternating between them. scripts/bench.sh
// turns the metrics into a table of ratios.

// turnFixture is the recorded session the bench server serves its turn from.
const turnFixture = "../../fixtures/hermetic/0.171.0/approval-accept.jsonl"

// turnPaths are the paths a turn can take, in the table's order; BENCH_PATHS (a
// comma-separated list) runs some of them only (to profile one, for example).
// CODEXREC_BASE, the path of another codexrec binary (an older build), adds its
// record paths as base-plain and base-record: before and after, in the same run.
var turnPaths = func() []string {
	if p := os.Getenv("BENCH_PATHS"); p != "" {
		return strings.Split(p, ",")
	}
	if os.Getenv("CODEXREC_BASE") != "" {
		return turnPathsWithBase
	}
	return turnPathsWithBase[:4]
}()

var turnPathsWithBase = []string{"server", "relay-c", "record-plain", "record", "base-plain", "base-record"}

// turnTwin is a turn path's base twin (benchOrder).
func turnTwin(p string) string {
	return map[string]string{"record-plain": "base-plain", "record": "base-record"}[p]
}

// turnOrder is the clients in round r's order (benchOrder).
func turnOrder(clients []*turnClient, r uint64) []*turnClient {
	byName := map[string]*turnClient{}
	var names []string
	for _, c := range clients {
		byName[c.name] = c
		names = append(names, c.name)
	}
	var out []*turnClient
	for _, n := range benchOrder(names, turnTwin, r) {
		out = append(out, byName[n])
	}
	return out
}

// turnClient is one session with the bench server along one path.
type turnClient struct {
	name   string
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	rec    string // the recording, for record paths
	nextID int
	sent   int64 // client frames written
	got    int64 // server frames read
	bytes  int64 // server bytes read
	crc    uint32

	tputFrames, tputBytes int64
	tputTime              time.Duration
	lat                   []time.Duration
}

// buildBenchTools builds the bench server and, when a C compiler is at hand, the C
// relay; it returns the server's path and the relay's ("" without cc).
func buildBenchTools(b *testing.B) (server, relay string) {
	dir := b.TempDir()
	server = filepath.Join(dir, "benchserver")
	if out, err := exec.Command("go", "build", "-o", server, "../../internal/testing/benchserver").CombinedOutput(); err != nil {
		b.Fatalf("building benchserver: %v\n%s", err, out)
	}
	if cc, err := exec.LookPath("cc"); err == nil {
		relay = filepath.Join(dir, "relay-c")
		if out, err := exec.Command(cc, "-O2", "-pthread", "-o", relay, filepath.Join("testdata", "relay.c")).CombinedOutput(); err != nil {
			b.Logf("relay-c not built: %v\n%s", err, out)
			relay = ""
		}
	}
	return server, relay
}

// startTurnClient starts path's process chain around server (argv) and runs the
// session's opening: initialize, initialized, thread/start.
func startTurnClient(b *testing.B, path, relay string, server []string) *turnClient {
	c := &turnClient{name: path}
	var argv []string
	switch path {
	case "server":
		argv = server
	case "relay-c":
		argv = append([]string{relay}, server...)
	case "record-plain":
		c.rec = filepath.Join(b.TempDir(), "plain.jsonl")
		argv = append([]string{codexrecBin, "record", "--no-validate", "--no-sanitize", "--force", "-o", c.rec, "--"}, server...)
	case "record":
		c.rec = filepath.Join(b.TempDir(), "record.jsonl")
		argv = append([]string{codexrecBin, "record", "--force", "-o", c.rec, "--"}, server...)
	case "base-plain":
		c.rec = filepath.Join(b.TempDir(), "base-plain.jsonl")
		argv = append([]string{os.Getenv("CODEXREC_BASE"), "record", "--no-validate", "--no-sanitize", "--force", "-o", c.rec, "--"}, server...)
	case "base-record":
		c.rec = filepath.Join(b.TempDir(), "base-record.jsonl")
		argv = append([]string{os.Getenv("CODEXREC_BASE"), "record", "--force", "-o", c.rec, "--"}, server...)
	default:
		b.Fatalf("unknown path %s", path)
	}
	c.cmd = exec.Command(argv[0], argv[1:]...)
	c.cmd.Stderr = os.Stderr
	c.in, _ = c.cmd.StdinPipe()
	out, _ := c.cmd.StdoutPipe()
	c.out = bufio.NewReaderSize(out, 4<<20)
	if err := c.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	// Every path's last pipe gets the size record gives its own (1 MiB): the server
	// alone must not be held back by a smaller pipe than the proxies enjoy.
	if f, ok := out.(*os.File); ok {
		growPipe(f)
	}
	c.request("initialize", `{"clientInfo":{"name":"codexrec-bench","title":"codexrec bench","version":"1"}}`)
	c.readUntil(b, []byte(`"id":0`))
	c.send(`{"jsonrpc":"2.0","method":"initialized"}` + "\n")
	c.request("thread/start", `{"approvalPolicy":"never","cwd":"/tmp","sandbox":"read-only"}`)
	c.readUntil(b, []byte(`"id":1`))
	return c
}

// send writes one client frame; a failed write shows as the read after it failing.
func (c *turnClient) send(line string) {
	io.WriteString(c.in, line)
	c.sent++
}

func (c *turnClient) request(method, params string) {
	c.send(fmt.Sprintf(`{"id":%d,"jsonrpc":"2.0","method":%q,"params":%s}`+"\n", c.nextID, method, params))
	c.nextID++
}

func (c *turnClient) startTurn() {
	c.request("turn/start", `{"input":[{"text":"Print a greeting with echo.","type":"text"}],"threadId":"01a226fa-5ad0-7210-8202-b6b8e14b6ed2"}`)
}

// readUntil reads server frames until one holding mark within its first 64 bytes.
func (c *turnClient) readUntil(b *testing.B, mark []byte) (frames, n int64) {
	for {
		line, err := c.out.ReadSlice('\n')
		if err != nil {
			b.Fatalf("%s: reading: %v (after %d frames)", c.name, err, c.got)
		}
		frames++
		n += int64(len(line))
		c.crc = crc32.Update(c.crc, crc32.IEEETable, line)
		if bytes.Contains(line[:min(len(line), 64)], mark) {
			c.got += frames
			c.bytes += n
			return frames, n
		}
	}
}

var turnCompleted = []byte(`"method":"turn/completed"`)

// burst pipelines n turns: throughput.
func (c *turnClient) burst(b *testing.B, n int) {
	t0 := time.Now()
	written := make(chan struct{})
	go func() {
		defer close(written)
		for range n {
			c.startTurn()
		}
	}()
	for range n {
		f, by := c.readUntil(b, turnCompleted)
		c.tputFrames += f
		c.tputBytes += by
	}
	c.tputTime += time.Since(t0)
	<-written
}

// turn runs one turn alone: the time from its turn/start written to turn/completed
// read is the turn's latency.
func (c *turnClient) turn(b *testing.B) {
	t0 := time.Now()
	c.startTurn()
	c.readUntil(b, turnCompleted)
	c.lat = append(c.lat, time.Since(t0))
}

// close ends the session and checks the recording lost nothing: its trailer must
// count every frame each way.
func (c *turnClient) close(b *testing.B) {
	c.in.Close()
	if rest, _ := io.Copy(io.Discard, c.out); rest != 0 {
		b.Fatalf("%s: %d bytes after the last turn", c.name, rest)
	}
	if err := c.cmd.Wait(); err != nil {
		b.Fatalf("%s: %v", c.name, err)
	}
	if c.rec != "" {
		assertTrailer(b, c.name, c.rec, c.sent, c.got)
	}
}

// assertTrailer fails b when the recording at path (made by who) counts other
// frames than crossed.
func assertTrailer(b *testing.B, who, path string, c2s, s2c int64) {
	rec, err := recorder.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	tr := rec.Trailer
	if tr == nil {
		b.Fatalf("%s: no trailer", path)
	}
	if tr.Frames["c2s"] != c2s || tr.Frames["s2c"] != s2c {
		b.Fatalf("%s (%s): recording lost frames: trailer counts c2s %d s2c %d, the client sent %d and read %d",
			path, who, tr.Frames["c2s"], tr.Frames["s2c"], c2s, s2c)
	}
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// BenchmarkTurn runs b.N rounds. In each, every path in turn (in benchOrder's
// order, shuffled round by round) gets a burst of BENCH_BURST pipelined turns (throughput: frames and
// bytes read per second until the last turn/completed), then BENCH_LAT single turns
// per path, alternating turn by turn (latency: turn/start written to turn/completed
// read). The sessions last the whole benchmark; at the end each recording's trailer
// must count every frame, and every path must have delivered the very bytes the
// server alone did (a CRC of the stream).
func BenchmarkTurn(b *testing.B) {
	server, relay := buildBenchTools(b)
	argv := []string{server, "-fixture", turnFixture}
	burst, latTurns := envInt("BENCH_BURST", 16), envInt("BENCH_LAT", 10)
	var clients []*turnClient
	for _, p := range turnPaths {
		if p == "relay-c" && relay == "" {
			continue
		}
		clients = append(clients, startTurnClient(b, p, relay, argv))
	}
	b.ResetTimer()
	for range b.N {
		order := turnOrder(clients, benchRounds)
		benchRounds++
		for _, c := range order {
			c.burst(b, burst)
		}
		for range latTurns {
			for _, c := range order {
				c.turn(b)
			}
		}
	}
	b.StopTimer()
	for _, c := range clients {
		c.close(b)
		if clients[0].name == "server" && c.crc != clients[0].crc || c.bytes != clients[0].bytes {
			b.Fatalf("%s delivered other bytes than the server alone (%d bytes, crc %08x; server %d bytes, crc %08x)",
				c.name, c.bytes, c.crc, clients[0].bytes, clients[0].crc)
		}
		secs := c.tputTime.Seconds()
		b.ReportMetric(float64(c.tputFrames)/secs, c.name+"-frames/s")
		b.ReportMetric(float64(c.tputBytes)/secs/1e6, c.name+"-MB/s")
		b.ReportMetric(float64(percentile(c.lat, 0.50).Microseconds()), c.name+"-p50-µs")
		b.ReportMetric(float64(percentile(c.lat, 0.99).Microseconds()), c.name+"-p99-µs")
	}
	b.ReportMetric(0, "frames-lost")
}

// BenchmarkLoad measures small-frame latency under load: the bench server answers
// each turn/start with BENCH_STREAM message deltas paced 200 µs apart, every 100th a
// 200 KB command-output delta, each stamped with the time it was written. Each of
// b.N rounds streams one turn through every path, alternating. Reported per path: the
// small deltas' latency (written by the server to read by the client) p50 and p99,
// the p50 and p99 of the small deltas right after a large one (the 5 that follow it),
// and the large deltas' p50; copy-200KB-µs is the time this process takes to copy 200 KB.
// The -due- figures count from the time each delta was due rather than written: a
// path whose small pipe blocks the server's write of a large delta (the C relay's
// 64 KB) makes the deltas after it late at the server, which counting from the write
// would not see.
func BenchmarkLoad(b *testing.B) {
	server, relay := buildBenchTools(b)
	n := envInt("BENCH_STREAM", 1000)
	argv := []string{server, "-fixture", turnFixture, "-stream", strconv.Itoa(n), "-big-every", "100", "-big-kb", "200", "-interval", "200us"}
	var clients []*turnClient
	for _, p := range turnPaths {
		if p == "relay-c" && relay == "" {
			continue
		}
		clients = append(clients, startTurnClient(b, p, relay, argv))
	}
	type lats struct{ small, after, big, smallDue, afterDue []time.Duration }
	all := make([]lats, len(clients))
	stamp := []byte(`"delta":"t`)
	b.ResetTimer()
	index := map[*turnClient]int{}
	for k, c := range clients {
		index[c] = k
	}
	for range b.N {
		order := turnOrder(clients, benchRounds)
		benchRounds++
		for _, c := range order {
			l := &all[index[c]]
			c.startTurn()
			since := 1 << 30 // frames since the last large delta
			for {
				line, err := c.out.ReadSlice('\n')
				now := time.Now().UnixNano()
				if err != nil {
					b.Fatalf("%s: reading: %v", c.name, err)
				}
				c.got++
				c.bytes += int64(len(line))
				j := bytes.Index(line, stamp)
				if j < 0 {
					if bytes.Contains(line[:min(len(line), 64)], turnCompleted) {
						break
					}
					continue
				}
				written, due := stamps(line[j+len(stamp)-1:])
				d, dd := time.Duration(now-written), time.Duration(now-due)
				switch {
				case len(line) > 100_000:
					l.big = append(l.big, d)
					since = 0
				default:
					l.small = append(l.small, d)
					l.smallDue = append(l.smallDue, dd)
					if since++; since <= 5 {
						l.after = append(l.after, d)
						l.afterDue = append(l.afterDue, dd)
					}
				}
			}
		}
	}
	b.StopTimer()
	for i, c := range clients {
		c.close(b)
		l := all[i]
		b.ReportMetric(float64(percentile(l.small, 0.50).Microseconds()), c.name+"-small-p50-µs")
		b.ReportMetric(float64(percentile(l.small, 0.99).Microseconds()), c.name+"-small-p99-µs")
		b.ReportMetric(float64(percentile(l.after, 0.50).Microseconds()), c.name+"-after-big-p50-µs")
		b.ReportMetric(float64(percentile(l.after, 0.99).Microseconds()), c.name+"-after-big-p99-µs")
		b.ReportMetric(float64(percentile(l.big, 0.50).Microseconds()), c.name+"-big-p50-µs")
		b.ReportMetric(float64(percentile(l.smallDue, 0.99).Microseconds()), c.name+"-small-due-p99-µs")
		b.ReportMetric(float64(percentile(l.afterDue, 0.50).Microseconds()), c.name+"-after-big-due-p50-µs")
		b.ReportMetric(float64(percentile(l.afterDue, 0.99).Microseconds()), c.name+"-after-big-due-p99-µs")
	}
	src, dst := bytes.Repeat([]byte("x"), 200<<10), make([]byte, 200<<10)
	var copies []time.Duration
	for range 200 {
		t0 := time.Now()
		copy(dst, src)
		copies = append(copies, time.Since(t0))
	}
	b.ReportMetric(float64(percentile(copies, 0.5).Nanoseconds())/1000, "copy-200KB-µs")
}

// BenchmarkHugeLine measures the peak resident memory of `codexrec record` for one
// line of HUGE_MB megabytes (a command-output delta; default 100) in each mode:
// "echo" sends it through `record -- cat` (so it crosses both ways, and both copies
// may be in flight at once), "s2c" has the server send it once (`record -- cat FILE`).
// The modes: plain, validate, sanitize and both without the leak guard (the pipeline
// while frames cross), and defaults (both, then the guard's scan of the file). cat
// never answers initialize, so the validating modes are given the Codex version, as a
// session's initialize response gives it; unknown-version is "both" without it: the
// validator then holds a copy of each frame until the version is known.
// The figures are the process's ru_maxrss (the largest of it and its child) in MB,
// taken by testdata/maxrss.
func BenchmarkHugeLine(b *testing.B) {
	size := envInt("HUGE_MB", 100) << 20
	maxrss := filepath.Join(b.TempDir(), "maxrss")
	if out, err := exec.Command("go", "build", "-o", maxrss, "./testdata/maxrss").CombinedOutput(); err != nil {
		b.Fatalf("building maxrss: %v\n%s", err, out)
	}
	rssOut := filepath.Join(b.TempDir(), "rss")
	var line bytes.Buffer
	line.WriteString(`{"method":"item/commandExecution/outputDelta","params":{"threadId":"01a226fa-5ad0-7210-8202-b6b8e14b6ed2","turnId":"01a226fa-5ba7-7251-a0b2-1479287d987c","itemId":"call_1_1","delta":"`)
	chunk := []byte("ok  \\tgithub.com/example/project/internal/pkg042\\t0.042s\\tcoverage: 42.1% of statements\\n")
	for line.Len() < size {
		line.Write(chunk)
	}
	line.WriteString(`"},"emittedAtMs":1795950272760}` + "\n")
	data := line.Bytes()
	file := filepath.Join(b.TempDir(), "line.jsonl")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		b.Fatal(err)
	}
	modes := []struct {
		name  string
		flags []string
	}{
		{"plain", []string{"--no-validate", "--no-sanitize", "--no-leak-guard"}},
		{"validate", []string{"--codex-version", "0.171.0", "--no-sanitize", "--no-leak-guard"}},
		{"sanitize", []string{"--no-validate", "--no-leak-guard"}},
		{"both", []string{"--codex-version", "0.171.0", "--no-leak-guard"}},
		{"defaults", []string{"--codex-version", "0.171.0"}}, // both, and the leak guard's scan of the file
		{"unknown-version", []string{"--no-leak-guard"}},
	}
	b.ResetTimer()
	for range b.N {
		for _, shape := range []string{"echo", "s2c"} {
			for _, m := range modes {
				rec := filepath.Join(b.TempDir(), "huge.jsonl")
				args := append(append([]string{"record", "--force", "-o", rec}, m.flags...), "--", "cat")
				var stdin io.Reader = bytes.NewReader(data)
				want := int64(len(data))
				if shape == "s2c" {
					args, stdin = append(args, file), bytes.NewReader(nil)
				}
				cmd := exec.Command(maxrss, append([]string{codexrecBin}, args...)...)
				cmd.Env = append(os.Environ(), "MAXRSS_OUT="+rssOut)
				cmd.Stdin = stdin
				var got countWriter
				cmd.Stdout = &got
				cmd.Stderr = io.Discard
				if err := cmd.Run(); err != nil {
					b.Fatalf("%s %s: %v", shape, m.name, err)
				}
				if int64(got) != want {
					b.Fatalf("%s %s: %d bytes out, want %d", shape, m.name, got, want)
				}
				c2s := int64(1)
				if shape == "s2c" {
					c2s = 0
				}
				assertTrailer(b, shape+" "+m.name, rec, c2s, 1)
				kb, err := os.ReadFile(rssOut)
				if err != nil {
					b.Fatal(err)
				}
				n, _ := strconv.Atoi(string(bytes.TrimSpace(kb)))
				b.ReportMetric(float64(n)/1024, shape+"-"+m.name+"-rss-MB")
			}
		}
	}
	b.ReportMetric(float64(len(data))/(1<<20), "line-MB")
}

// stamps parses a delta's "t<written-ns> d<due-ns> " prefix (from its 't').
func stamps(b []byte) (written, due int64) {
	fields := bytes.SplitN(b, []byte(" "), 3)
	if len(fields) < 2 {
		return 0, 0
	}
	written, _ = strconv.ParseInt(string(bytes.TrimPrefix(fields[0], []byte("t"))), 10, 64)
	due, _ = strconv.ParseInt(string(bytes.TrimPrefix(fields[1], []byte("d"))), 10, 64)
	return written, due
}

type countWriter int64

func (w *countWriter) Write(p []byte) (int, error) { *w += countWriter(len(p)); return len(p), nil }
