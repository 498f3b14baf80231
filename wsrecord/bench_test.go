package wsrecord_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/fixtures/fakemodel"
	"github.com/codexrec/codexrec/internal/testing/wstest"
	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/wsproxy"
	"github.com/codexrec/codexrec/wsrecord"
)

// benchServer is one real codex app-server on a private unix socket, reached
// directly and through a recording relay (the default pipeline: validation,
// sanitizing, leak guard), in the same run, so the two are compared on the same
// server, machine and moment.
type benchServer struct {
	codex   *wstest.Codex
	direct  wsproxy.Addr
	relayed wsproxy.Addr
	plain   wsproxy.Addr // a relay without taps: the cost of the hop alone
}

func startBench(b *testing.B, turns int) *benchServer {
	b.Helper()
	// A realistic turn: reasoning, then a reply streamed in 40 deltas.
	words := strings.Fields(strings.Repeat("the quick brown fox jumps over the lazy dog ", 5))[:40]
	var deltas []string
	for _, w := range words {
		deltas = append(deltas, w+" ")
	}
	resp := fakemodel.Response{Output: []fakemodel.Item{
		{Type: "reasoning", Text: "Thinking about the answer."},
		{Type: "message", Text: strings.Join(deltas, ""), Deltas: deltas}}}
	script := make([]fakemodel.Response, turns)
	for i := range script {
		script[i] = resp
	}
	codex := wstest.Prepare(b, "0.171.0", script)
	codex.Start(b, "unix")
	cwd, _ := os.Getwd()
	rec := &wsrecord.Recorder{Dir: b.TempDir(), NewSession: func() (*record.Session, error) {
		z, err := sanitize.New(sanitize.Options{Maps: sanitize.DefaultMaps(cwd, os.Getenv)})
		if err != nil {
			return nil, err
		}
		return &record.Session{Validator: &schema.SessionValidator{Classified: true}, Sanitizer: z, Guard: z}, nil
	}}
	rec.Upstream = codex.Addr
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { rec.Serve(ctx, ln); close(done) }()
	pln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	pdone := make(chan struct{})
	go func() { (&wsproxy.Relay{Upstream: codex.Addr}).Serve(ctx, pln); close(pdone) }()
	b.Cleanup(func() { cancel(); <-done; <-pdone })
	return &benchServer{codex: codex, direct: codex.Addr, relayed: wsproxy.Addr{Scheme: "ws", Host: ln.Addr().String()},
		plain: wsproxy.Addr{Scheme: "ws", Host: pln.Addr().String()}}
}

// interleaved runs an op against the direct connection, the plain relay and the
// recording relay in turns, b.N times each, so that all see the same moment of a
// shared machine, and reports the mean times and the ratios to direct.
func interleaved(b *testing.B, unit string, direct, plain, record func(n int) time.Duration) {
	var d, p, r time.Duration
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		switch n % 3 {
		case 0:
			d += direct(n)
			p += plain(n)
			r += record(n)
		case 1:
			r += record(n)
			d += direct(n)
			p += plain(n)
		default:
			p += plain(n)
			r += record(n)
			d += direct(n)
		}
	}
	b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "direct-ns/"+unit)
	b.ReportMetric(float64(r.Nanoseconds())/float64(b.N), "record-ns/"+unit)
	b.ReportMetric(float64(p)/float64(d), "relay/direct")
	b.ReportMetric(float64(r)/float64(d), "record/direct")
}

// BenchmarkSocketRoundTrip: one small request and its response at a time
// (thread/list).
func BenchmarkSocketRoundTrip(b *testing.B) {
	s := startBench(b, 1)
	dc := wstest.MustDial(b, s.direct, nil)
	dc.Initialize("bench")
	rc := wstest.MustDial(b, s.relayed, nil)
	rc.Initialize("bench")
	pc := wstest.MustDial(b, s.plain, nil)
	pc.Initialize("bench")
	op := func(c *wstest.Client) func(int) time.Duration {
		return func(n int) time.Duration {
			id := strconv.Itoa(100 + n)
			start := time.Now()
			c.Send(`{"id":` + id + `,"method":"thread/list","params":{}}`)
			c.Wait(len(c.Got())-1, "thread/list", wstest.Response(id))
			return time.Since(start)
		}
	}
	interleaved(b, "roundtrip", op(dc), op(pc), op(rc))
}

// BenchmarkSocketBurst: 200 requests sent back to back, then their responses:
// throughput rather than latency (msgs/s = 400 / the op's time).
func BenchmarkSocketBurst(b *testing.B) {
	s := startBench(b, 1)
	const burst = 200
	op := func(addr wsproxy.Addr) func(int) time.Duration {
		conn, _, err := wstest.Dialer(addr).Dial(wsproxy.DialURL(addr, ""), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { conn.Close() })
		conn.WriteMessage(websocket.TextMessage, []byte(`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"bench","version":"1"}}}`))
		readUntil(b, conn, "1")
		conn.WriteMessage(websocket.TextMessage, []byte(`{"method":"initialized"}`))
		id := 100
		return func(int) time.Duration {
			start := time.Now()
			for j := 0; j < burst; j++ {
				id++
				conn.WriteMessage(websocket.TextMessage, []byte(`{"id":`+strconv.Itoa(id)+`,"method":"thread/list","params":{}}`))
			}
			readUntil(b, conn, strconv.Itoa(id))
			return time.Since(start)
		}
	}
	interleaved(b, "burst", op(s.direct), op(s.plain), op(s.relayed))
}

func readUntil(b *testing.B, conn *websocket.Conn, id string) {
	for {
		_, p, err := conn.ReadMessage()
		if err != nil {
			b.Fatal(err)
		}
		if gjson.GetBytes(p, "id").Raw == id {
			return
		}
	}
}

// BenchmarkSocketTurn: a full turn (turn/start, ~70 notifications with reasoning
// and 40 deltas, turn/completed) against the fake model, on one thread per
// connection.
func BenchmarkSocketTurn(b *testing.B) {
	const maxTurns = 1000
	s := startBench(b, 3*maxTurns)
	if b.N > maxTurns {
		b.Fatalf("more than %d turns", maxTurns)
	}
	op := func(addr wsproxy.Addr) func(int) time.Duration {
		c := wstest.MustDial(b, addr, nil)
		i := c.Initialize("bench")
		thread, _ := c.StartThread(i, s.codex.Work)
		return func(n int) time.Duration {
			from := len(c.Got())
			start := time.Now()
			c.Send(fmt.Sprintf(`{"id":%d,"method":"turn/start","params":{"threadId":%q,"input":[{"type":"text","text":"hi"}]}}`, 1000+n, thread))
			c.Wait(from, "turn/completed", wstest.Method("turn/completed"))
			return time.Since(start)
		}
	}
	interleaved(b, "turn", op(s.direct), op(s.plain), op(s.relayed))
}
