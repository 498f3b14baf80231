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
	"github.com/codexrec/codexrec/internal/wstest"
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
	b.Cleanup(func() { cancel(); <-done })
	return &benchServer{codex: codex, direct: codex.Addr, relayed: wsproxy.Addr{Scheme: "ws", Host: ln.Addr().String()}}
}

func (s *benchServer) targets() []struct {
	name string
	addr wsproxy.Addr
} {
	return []struct {
		name string
		addr wsproxy.Addr
	}{{"direct", s.direct}, {"record", s.relayed}}
}

// BenchmarkSocketRoundTrip: one small request and its response at a time
// (thread/list); messages/s counts both.
func BenchmarkSocketRoundTrip(b *testing.B) {
	s := startBench(b, 1)
	for _, tg := range s.targets() {
		b.Run(tg.name, func(b *testing.B) {
			c := wstest.MustDial(b, tg.addr, nil)
			c.Initialize("bench")
			conn := c.Conn
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				id := strconv.Itoa(100 + i)
				c.Send(`{"id":` + id + `,"method":"thread/list","params":{}}`)
				c.Wait(len(c.Got())-1, "thread/list", wstest.Response(id))
			}
			b.ReportMetric(float64(2*b.N)/time.Since(start).Seconds(), "msgs/s")
			conn.Close()
		})
	}
}

// BenchmarkSocketBurst: 200 requests sent back to back, then their responses:
// throughput rather than latency.
func BenchmarkSocketBurst(b *testing.B) {
	s := startBench(b, 1)
	const burst = 200
	for _, tg := range s.targets() {
		b.Run(tg.name, func(b *testing.B) {
			conn, _, err := wstest.Dialer(tg.addr).Dial(wsproxy.DialURL(tg.addr, ""), nil)
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			conn.WriteMessage(websocket.TextMessage, []byte(`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"bench","version":"1"}}}`))
			readUntil(b, conn, "1")
			conn.WriteMessage(websocket.TextMessage, []byte(`{"method":"initialized"}`))
			b.ResetTimer()
			start := time.Now()
			id := 100
			for i := 0; i < b.N; i++ {
				for j := 0; j < burst; j++ {
					id++
					conn.WriteMessage(websocket.TextMessage, []byte(`{"id":`+strconv.Itoa(id)+`,"method":"thread/list","params":{}}`))
				}
				readUntil(b, conn, strconv.Itoa(id))
			}
			b.ReportMetric(float64(2*burst*b.N)/time.Since(start).Seconds(), "msgs/s")
		})
	}
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

// BenchmarkSocketTurn: a full turn (thread/start, turn/start, ~70 notifications,
// turn/completed) against the fake model; ns/op is the turn's latency.
func BenchmarkSocketTurn(b *testing.B) {
	const maxTurns = 2000
	s := startBench(b, maxTurns)
	used := 0
	for _, tg := range s.targets() {
		b.Run(tg.name, func(b *testing.B) {
			c := wstest.MustDial(b, tg.addr, nil)
			i := c.Initialize("bench")
			thread, i := c.StartThread(i, s.codex.Work)
			msgs := 0
			b.ResetTimer()
			start := time.Now()
			for n := 0; n < b.N; n++ {
				if used++; used > maxTurns {
					b.Fatalf("more than %d turns", maxTurns)
				}
				from := len(c.Got())
				c.Send(fmt.Sprintf(`{"id":%d,"method":"turn/start","params":{"threadId":%q,"input":[{"type":"text","text":"hi"}]}}`, 1000+n, thread))
				_, i = c.Wait(from, "turn/completed", wstest.Method("turn/completed"))
				msgs += i + 1 - from + 1
			}
			b.ReportMetric(float64(msgs)/time.Since(start).Seconds(), "msgs/s")
			c.Conn.Close()
		})
	}
}
