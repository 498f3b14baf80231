package wsrecord_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/fixtures/fakemodel"
	"github.com/codexrec/codexrec/internal/testing/wstest"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
	"github.com/codexrec/codexrec/wsproxy"
	"github.com/codexrec/codexrec/wsrecord"
)

// heapPeak samples the heap in use until stop is called, and returns the most seen.
func heapPeak() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() uint64 { close(done); wg.Wait(); return peak.Load() }
}

// bigFrame is a JSON-RPC notification of about size bytes that the app-server
// reads and ignores (an unknown method), distinct per connection and index.
func bigFrame(conn, i, size int) []byte {
	head := fmt.Sprintf(`{"method":"codexrec/pad","params":{"conn":%d,"i":%d,"pad":"`, conn, i)
	b := make([]byte, 0, size)
	b = append(b, head...)
	b = append(b, bytes.Repeat([]byte{'a' + byte((conn+i)%26)}, size-len(head)-3)...)
	return append(b, `"}}`...)
}

// pads are runs of each letter that bigFrame's pad is written from.
var pads = func() (p [26][]byte) {
	for i := range p {
		p[i] = bytes.Repeat([]byte{'a' + byte(i)}, 32<<10)
	}
	return p
}()

// writeBigFrame sends bigFrame(conn, i, size) without holding it whole: the
// clients' own memory stays out of the relay's figures. The message goes out in
// fragments, which the relay reads as one message.
func writeBigFrame(c *websocket.Conn, conn, i, size int) error {
	head := fmt.Sprintf(`{"method":"codexrec/pad","params":{"conn":%d,"i":%d,"pad":"`, conn, i)
	w, err := c.NextWriter(websocket.TextMessage)
	if err != nil {
		return err
	}
	io.WriteString(w, head)
	pad := pads[(conn+i)%26]
	for n := size - len(head) - 3; n > 0; n -= len(pad) {
		if _, err := w.Write(pad[:min(n, len(pad))]); err != nil {
			return err
		}
	}
	io.WriteString(w, `"}}`)
	return w.Close()
}

// loadRun sends frames of size bytes on each of conns connections at once to a
// record run in front of a real app-server, each client closing once its frames
// are written, and returns the recordings' results, the peak of the budget in use
// and the peak heap in use above the heap before the clients started.
func loadRun(tb testing.TB, codex *wstest.Codex, conns, frames, size int, budget int64) (results []wsrecord.Result, budgetPeak int64, heap uint64) {
	tb.Helper()
	rec := &wsrecord.Recorder{Dir: tb.TempDir(), MemoryBudget: budget}
	run, err := wsrecord.Start(wsrecord.Options{Listen: "ws://127.0.0.1:0", Upstream: codex.Addr.String()}, rec)
	if err != nil {
		tb.Fatal(err)
	}
	addr, _ := wsproxy.ParseURL(run.URL)
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	stop := heapPeak()
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	for c := 0; c < conns; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := wstest.Dialer(addr)
			d.HandshakeTimeout = 2 * time.Minute
			conn, _, err := d.Dial(wsproxy.DialURL(addr, ""), nil)
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close()
			for i := 0; i < frames; i++ {
				if err := writeBigFrame(conn, c, i, size); err != nil {
					errs <- fmt.Errorf("client %d, frame %d: %w", c, i, err)
					return
				}
			}
			conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
			conn.SetReadDeadline(time.Now().Add(2 * time.Minute))
			for { // until the relay closes in turn
				if _, _, err := conn.ReadMessage(); err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for len(rec.Results()) < conns && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	peak := stop()
	budgetPeak = rec.Budget().Peak()
	if err := run.Stop(); err != nil {
		tb.Fatal(err)
	}
	if peak > base.HeapInuse {
		heap = peak - base.HeapInuse
	}
	return rec.Results(), budgetPeak, heap
}

// 200 connections sending large frames at once under a small budget: the bytes
// held never pass the budget by more than one message, the heap stays far below
// what crossed, and every recording holds every frame its client sent.
func TestRecordManyConnectionsUnderBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("200 connections of large frames")
	}
	codex := wstest.Prepare(t, "0.171.0", wstest.TurnModel())
	codex.Start(t, "unix")
	const (
		conns   = 200
		nframes = 2
		size    = 1 << 20
		budget  = 16 << 20
	)
	results, budgetPeak, heap := loadRun(t, codex, conns, nframes, size, budget)
	crossed := int64(conns * nframes * size)
	t.Logf("%d connections x %d frames of %d KiB (%d MiB): budget %d MiB, budget peak %.1f MiB, heap peak +%.1f MiB",
		conns, nframes, size>>10, crossed>>20, budget>>20, float64(budgetPeak)/(1<<20), float64(heap)/(1<<20))
	// One message may overdraw: its buffer's capacity is at most twice its size.
	if budgetPeak > budget+2*size {
		t.Errorf("the bytes held peaked at %d, past the budget %d plus one message", budgetPeak, budget)
	}
	// The pipeline's working copies of the messages held come on top of the budget;
	// the bound is generous, but far below the bytes that crossed.
	if limit := uint64(8*budget + 64<<20); heap > limit {
		t.Errorf("heap in use peaked %d MiB above the start, want under %d MiB (%d MiB crossed)", heap>>20, limit>>20, crossed>>20)
	}
	if len(results) != conns {
		t.Fatalf("%d recordings, want %d", len(results), conns)
	}
	for _, r := range results {
		if r.Err != nil {
			t.Fatalf("connection %d: %v", r.Conn, r.Err)
		}
		got, rc := frames(t, r.Path, wire.ClientToServer)
		if len(got) != nframes {
			t.Fatalf("connection %d: %d client frames recorded, want %d", r.Conn, len(got), nframes)
		}
		c := int(gjson.GetBytes(got[0], "params.conn").Int())
		for i, g := range got {
			if !bytes.Equal(g, bigFrame(c, i, size)) {
				t.Fatalf("connection %d: frame %d differs from what client %d sent", r.Conn, i+1, c)
			}
		}
		if rc.Trailer == nil || rc.Trailer.Ended != recorder.EndClientClosed {
			t.Fatalf("connection %d: trailer %+v, want ended by the client", r.Conn, rc.Trailer)
		}
	}
}

// vmHWM is this process's peak resident set (Linux), 0 when unknown.
func vmHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkSocketMemory reports the memory of a record run while many clients
// send large frames at once: heap-MiB (heap in use at its peak, above the start),
// held-MiB (the budget's peak) and rss-MiB (the process's peak resident set, the
// clients' included: run one sub-benchmark per process for it to mean anything).
// Run one case per process: -bench 'SocketMemory/12x'.
func BenchmarkSocketMemory(b *testing.B) {
	codex := wstest.Prepare(b, "0.171.0", wstest.TurnModel())
	codex.Start(b, "unix")
	cases := []struct{ conns, frames, mib int }{{12, 1, 64}, {200, 1, 8}}
	for _, c := range cases {
		b.Run(fmt.Sprintf("%dx%dx%dMiB", c.conns, c.frames, c.mib), func(b *testing.B) {
			for range b.N {
				_, held, heap := loadRun(b, codex, c.conns, c.frames, c.mib<<20, 0)
				b.ReportMetric(float64(heap)/(1<<20), "heap-MiB")
				b.ReportMetric(float64(held)/(1<<20), "held-MiB")
				b.ReportMetric(float64(vmHWM())/(1<<20), "rss-MiB")
			}
		})
	}
}

// A client that stops reading while the server streams a long answer is
// disconnected once its queue is full, its recording says so (the frames it never
// got are marked undelivered), and another client's turn at the same time goes on
// undisturbed.
func TestRecordSlowClientDisconnected(t *testing.T) {
	var deltas []string
	for i := 0; i < 4000; i++ {
		deltas = append(deltas, strings.Repeat("x", 4000)+" ")
	}
	script := append([]fakemodel.Response{{Output: []fakemodel.Item{
		{Type: "message", Text: strings.Join(deltas, ""), Deltas: deltas}}}}, wstest.TurnModel()...)
	codex := wstest.Prepare(t, "0.171.0", script)
	codex.Start(t, "unix")
	rec := &wsrecord.Recorder{Dir: t.TempDir(), ClientQueue: 64}
	run, err := wsrecord.Start(wsrecord.Options{Listen: "ws://127.0.0.1:0", Upstream: codex.Addr.String()}, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Stop()
	addr, _ := wsproxy.ParseURL(run.URL)
	conn, _, err := wstest.Dialer(addr).Dial(wsproxy.DialURL(addr, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetReadLimit(-1)
	send := func(s string) {
		if err := conn.WriteMessage(websocket.TextMessage, []byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	readID := func(id string) gjson.Result {
		for {
			_, p, err := conn.ReadMessage()
			if err != nil {
				t.Fatal(err)
			}
			if m := gjson.ParseBytes(p); m.Get("id").Raw == id && !m.Get("method").Exists() {
				return m
			}
		}
	}
	send(`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"slow","version":"1"}}}`)
	readID("1")
	send(`{"method":"initialized"}`)
	send(`{"id":2,"method":"thread/start","params":{"cwd":` + strconv.Quote(codex.Work) + `,"approvalPolicy":"never"}}`)
	thread := readID("2").Get("result.thread.id").Str
	send(`{"id":3,"method":"turn/start","params":{"threadId":"` + thread + `","input":[{"type":"text","text":"hi"}]}}`)
	// This client reads no more; the other runs a whole turn meanwhile.
	time.Sleep(500 * time.Millisecond)
	other := wstest.MustDial(t, addr, nil)
	other.Turn(codex.Work)
	other.Conn.Close()

	// The slow client finds its connection closed by the relay: what the socket
	// buffers held, then the end.
	conn.SetReadDeadline(time.Now().Add(time.Minute))
	var readErr error
	for readErr == nil {
		_, _, readErr = conn.ReadMessage()
	}
	if ne, ok := readErr.(interface{ Timeout() bool }); ok && ne.Timeout() {
		t.Fatalf("the client that did not read was never disconnected")
	}
	waitResults(t, rec, 2)
	for _, r := range rec.Results() {
		if r.Err != nil {
			t.Fatalf("connection %d: %v", r.Conn, r.Err)
		}
		got, err := recorder.ReadFile(r.Path)
		if err != nil {
			t.Fatal(err)
		}
		tr := got.Trailer
		t.Logf("connection %d: ended %s, client error %q, %d undelivered", r.Conn, tr.Ended, tr.ClientError, tr.Undelivered)
		switch r.Conn {
		case 1:
			if !strings.Contains(tr.ClientError, "did not read") || tr.Undelivered == 0 {
				t.Errorf("slow connection's trailer %+v: want the client disconnected for not reading, with undelivered frames", tr)
			}
			var undelivered int64
			for _, e := range got.Frames(wire.ServerToClient) {
				if e.Undelivered {
					undelivered++
				}
			}
			if undelivered != tr.Undelivered {
				t.Errorf("%d frames marked undelivered, the trailer says %d", undelivered, tr.Undelivered)
			}
		case 2:
			if tr.ClientError != "" || tr.Undelivered != 0 || tr.Ended != recorder.EndClientClosed {
				t.Errorf("the other connection's trailer %+v: want an ordinary end", tr)
			}
		}
	}
}
