package wsreplay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/codexrec/codexrec/wsproxy"
)

// newLineReader turns the client's text messages into the line stream replay reads:
// one message, one line. A raw line break inside a message (pretty-printed JSON)
// becomes a space, which is what it is to JSON, so that the message is not split.
// Binary messages are dropped (the app-server ignores them). Each message is read
// into room taken from mem and given back once the replay has taken it; active is
// called as bytes arrive. The stream ends when the connection does.
func newLineReader(ctx context.Context, c *websocket.Conn, mem *wsproxy.Budget, active func(), gone chan<- struct{}) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		for {
			typ, data, held, err := wsproxy.ReadMessage(ctx, c, mem, active)
			if err != nil {
				close(gone)
				pw.Close() // EOF: the client closed or dropped the connection
				return
			}
			if typ != websocket.MessageText {
				mem.Release(held)
				continue
			}
			for i, b := range data {
				if b == '\n' || b == '\r' {
					data[i] = ' '
				}
			}
			_, err = pw.Write(data)
			if err == nil {
				_, err = pw.Write(newline)
			}
			mem.Release(held)
			if err != nil {
				return
			}
		}
	}()
	return pr
}

var newline = []byte{'\n'}

// messageWriter turns the replay's lines into text messages, one per line, without
// the newline (the app-server's frames carry none). Messages are queued for the
// client as the app-server queues them, each copied into room taken from mem; a
// client whose queue is full and that has not read for stallTimeout is
// disconnected (see enqueue). Close drops the connection (a replayed crash).
type messageWriter struct {
	ctx     context.Context
	c       *websocket.Conn
	mem     *wsproxy.Budget
	gone    <-chan struct{} // closed when the client's side has ended
	pending []byte          // a line begun, taken from mem
	held    int64           // pending's room
	queue   chan outMsg
	active  func()       // called as each message is written
	bytes   atomic.Int64 // queued bytes
	wrote   atomic.Int64 // when a write last completed (UnixNano)
	failed  chan struct{}
	err     error // the failed write, set before failed is closed
	// sent, when set, counts the bytes written to the client: a message longer
	// than the queue's byte bound that makes no progress for stallTimeout is a
	// client that does not read (stalled says so), disconnected.
	sent    func() int64
	stalled atomic.Bool
	once    sync.Once
	done    chan struct{}
}

type outMsg struct {
	data []byte
	held int64
}

func newMessageWriter(ctx context.Context, c *websocket.Conn, mem *wsproxy.Budget, queue int, active func(), gone <-chan struct{}) *messageWriter {
	w := &messageWriter{ctx: ctx, c: c, mem: mem, gone: gone, queue: make(chan outMsg, queue), active: active,
		failed: make(chan struct{}), done: make(chan struct{})}
	w.wrote.Store(time.Now().UnixNano())
	go w.run()
	return w
}

// errClientGone is a write that failed because the client had gone: the replay's
// last frames had nobody to go to, an ordinary end for a socket.
var errClientGone = errors.New("the client had gone")

// errSlowClient is the write that found the client's queue full.
var errSlowClient = wsproxy.ErrSlowClient

func (w *messageWriter) run() {
	defer close(w.done)
	failed := false
	for m := range w.queue {
		if !failed {
			stop := w.watch(len(m.data))
			err := w.c.Write(w.ctx, websocket.MessageText, m.data)
			stop()
			if w.stalled.Load() {
				err = fmt.Errorf("%w (a message of %d bytes not read for %v)", errSlowClient, len(m.data), stallTimeout)
			}
			if err != nil {
				failed = true
				w.once.Do(func() { w.err = err; close(w.failed) })
			} else {
				w.wrote.Store(time.Now().UnixNano())
				w.active()
			}
		}
		w.bytes.Add(-int64(len(m.data)))
		w.mem.Release(m.held)
	}
}

// watch disconnects the client when the write of a message of size bytes, past
// the queue's byte bound, sends nothing for stallTimeout; the returned func ends
// the watch. A shorter message is the queue's to judge (enqueue).
func (w *messageWriter) watch(size int) (stop func()) {
	if w.sent == nil || int64(size) <= w.mem.Max()/4 {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		last, at := w.sent(), time.Now()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			if n := w.sent(); n != last {
				last, at = n, time.Now()
				continue
			}
			if time.Since(at) >= stallTimeout {
				w.stalled.Store(true)
				w.c.CloseNow()
				return
			}
		}
	}()
	return func() { close(done) }
}

// stallErr is the slow-client error when a long message went unread, or nil.
func (w *messageWriter) stallErr() error {
	if !w.stalled.Load() {
		return nil
	}
	<-w.failed
	return w.err
}

func (w *messageWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if err := w.failure(); err != nil {
			return 0, err
		}
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if err := w.hold(p); err != nil {
				return 0, err
			}
			break
		}
		if err := w.hold(p[:i]); err != nil {
			return 0, err
		}
		m := outMsg{data: w.pending, held: w.held}
		w.pending, w.held = nil, 0
		if err := w.enqueue(m); err != nil {
			return 0, err
		}
		p = p[i+1:]
	}
	return n, nil
}

// stallTimeout is how long a full queue may go without a write completing
// before its client counts as not reading.
const stallTimeout = 2 * time.Second

// enqueue queues m for the client. A full queue (messages, or a quarter of the
// budget in bytes) waits while the client reads: a replay runs faster than any
// model, and a client that reads must not be dropped for being slower than it.
// When the queue is full and no write has completed for stallTimeout, the client
// is not reading: it is disconnected.
func (w *messageWriter) enqueue(m outMsg) error {
	size := int64(len(m.data))
	var tick *time.Ticker
	for {
		queued := w.bytes.Load()
		if len(w.queue) == 0 || queued+size <= w.mem.Max()/4 {
			select {
			case w.queue <- m:
				w.bytes.Add(size)
				if tick != nil {
					tick.Stop()
				}
				return nil
			default:
			}
		}
		if tick == nil {
			tick = time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
		}
		if time.Since(time.Unix(0, w.wrote.Load())) >= stallTimeout {
			err := fmt.Errorf("%w (%d messages, %d bytes)", errSlowClient, len(w.queue), queued)
			w.mem.Release(m.held)
			w.c.CloseNow()
			return err
		}
		select {
		case <-tick.C:
		case <-w.failed:
			w.mem.Release(m.held)
			return w.failure()
		case <-w.ctx.Done():
			w.mem.Release(m.held)
			return w.ctx.Err()
		}
	}
}

// hold appends p to the line begun, in room taken from the budget.
func (w *messageWriter) hold(p []byte) error {
	if need := len(w.pending) + len(p); need > cap(w.pending) || w.pending == nil {
		grow := int64(max(need, 2*cap(w.pending))) - int64(cap(w.pending))
		if len(w.pending) == 0 {
			grow = int64(need) - int64(cap(w.pending))
		}
		if err := w.mem.Take(w.ctx, grow); err != nil {
			return err
		}
		nb := make([]byte, len(w.pending), int64(cap(w.pending))+grow)
		copy(nb, w.pending)
		w.pending = nb
		w.held += grow
	}
	w.pending = append(w.pending, p...)
	return nil
}

// failure is the error to return once a write failed: errClientGone when the
// reading side noticed the connection ended too.
func (w *messageWriter) failure() error {
	select {
	case <-w.failed:
	default:
		return nil
	}
	select {
	case <-w.gone:
		return errClientGone
	case <-time.After(time.Second):
	}
	return w.err
}

// flush waits until every queued message is written (or the writes failed).
func (w *messageWriter) flush() {
	close(w.queue)
	<-w.done
	w.mem.Release(w.held)
	w.pending, w.held = nil, 0
}

func (w *messageWriter) Close() error { return w.c.CloseNow() }
