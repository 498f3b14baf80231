package wsproxy

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/codexrec/codexrec/wire"
)

// Tap receives one connection's messages. Frame and Idle are called from one
// goroutine, in the order messages were read; End is called once, last.
type Tap interface {
	// Frame sees one message, with Seq, Time and pairing filled in. Line is the
	// exact payload (no newline is added); a binary message is KindRaw with reason
	// "binary". An error stops further calls to Frame; relaying goes on.
	Frame(*wire.Frame) error
	// Idle is called whenever the tap has caught up with every message read so far:
	// the moment to flush buffered output.
	Idle() error
	// End says how the connection ended.
	End(End)
}

// Side is who ended a connection.
type Side uint8

const (
	SideClient   Side = iota + 1 // the client closed or dropped the connection
	SideServer                   // the server closed or dropped it (the app-server never sends a close frame)
	SideShutdown                 // the relay was shut down (Serve's context ended)
)

func (s Side) String() string {
	switch s {
	case SideClient:
		return "client"
	case SideServer:
		return "server"
	case SideShutdown:
		return "shutdown"
	}
	return "unknown"
}

// End says how a connection ended.
type End struct {
	By Side
	// Code is the close code the closing side sent, or -1 when it dropped the
	// connection without a close frame (an ordinary end for the app-server).
	Code   websocket.StatusCode
	Reason string
	// Err is a failure other than a close or a drop: a message over the read limit,
	// a protocol error, a write that failed.
	Err error
	// TapErr is the first error Tap.Frame or Tap.Idle returned.
	TapErr error
	// Frames counts the messages tapped in each direction.
	Frames map[wire.Direction]int64
	// Undelivered counts, per direction, the messages read whose write failed
	// because the other side had gone: the last ones of that direction. A
	// client-bound one is tapped with wire.Frame.Undelivered set.
	Undelivered map[wire.Direction]int64
	// LastDelivered is the seq of the last message written to the client (0: none).
	LastDelivered int64
}

// BinaryReason is the Message.Reason of a binary frame.
const BinaryReason = "binary"

// conn is one relayed connection.
type conn struct {
	relay  *Relay
	client *websocket.Conn
	up     *websocket.Conn

	once        sync.Once
	end         End
	undelivered [3]atomic.Int64 // by direction
	stop        context.CancelFunc
	budget      *budget
}

// maxQueued bounds the bytes of one connection waiting for its tap (as the stdio
// proxy bounds its queue): past it, reading pauses; one message larger than the
// bound still passes alone.
const maxQueued = 64 << 20

// budget counts the bytes queued for the tap; take waits for room.
type budget struct {
	mu   sync.Mutex
	used int64
	max  int64
	room chan struct{} // closed and replaced whenever bytes are given back
}

func newBudget(max int64) *budget { return &budget{max: max, room: make(chan struct{})} }

func (b *budget) take(ctx context.Context, n int64) bool {
	for {
		b.mu.Lock()
		if b.used == 0 || b.used+n <= b.max {
			b.used += n
			b.mu.Unlock()
			return true
		}
		room := b.room
		b.mu.Unlock()
		select {
		case <-room:
		case <-ctx.Done():
			return false
		}
	}
}

func (b *budget) give(n int64) {
	b.mu.Lock()
	b.used -= n
	close(b.room)
	b.room = make(chan struct{})
	b.mu.Unlock()
}

type item struct {
	dir  wire.Direction
	typ  websocket.MessageType
	data []byte
	at   time.Duration
	// written is closed once a client-bound message's write has finished, with
	// delivered set: the tapper waits for it, so that a message the client never got
	// is tapped as undelivered.
	written   chan struct{}
	delivered bool
}

// run relays until either side ends, then closes the other and ends the tap.
func (c *conn) run(base context.Context, info *Conn, tap Tap) {
	// The connection's own lifetime: a shutdown (base ending) lets it read on for
	// ShutdownGrace before dropping it, so that what a client sent just before it
	// hung up, as the relay was being stopped, is still relayed and tapped.
	ctx, stop := context.WithCancel(context.WithoutCancel(base))
	c.stop = stop
	limit := c.relay.readLimit()
	c.client.SetReadLimit(limit)
	c.up.SetReadLimit(limit)

	queue := make(chan *item, c.relay.queueSize())
	c.budget = newBudget(maxQueued)
	tapped := make(chan End, 1)
	go func() { tapped <- c.tapper(queue, tap) }()

	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); c.pump(ctx, info.Start, c.client, c.up, wire.ClientToServer, queue) }()
	go func() { defer wg.Done(); c.pump(ctx, info.Start, c.up, c.client, wire.ServerToClient, queue) }()
	select {
	case <-ctx.Done():
	case <-base.Done():
		grace := time.NewTimer(c.relay.shutdownGrace())
		select {
		case <-ctx.Done():
		case <-grace.C:
		}
		grace.Stop()
		c.finish(End{By: SideShutdown, Code: -1}) // a no-op when the connection ended within the grace
	}
	wg.Wait()
	close(queue)
	tapEnd := <-tapped
	end := c.end
	end.TapErr, end.Frames, end.LastDelivered = tapEnd.TapErr, tapEnd.Frames, tapEnd.LastDelivered
	for _, dir := range []wire.Direction{wire.ClientToServer, wire.ServerToClient} {
		if n := c.undelivered[dir-1].Load(); n > 0 {
			if end.Undelivered == nil {
				end.Undelivered = map[wire.Direction]int64{}
			}
			end.Undelivered[dir] = n
		}
	}
	if tap != nil {
		tap.End(end)
	}
}

// finish records the first ending and closes both sides: the closing side's close
// code is passed on; a dropped side is dropped on the other too.
func (c *conn) finish(e End) {
	c.once.Do(func() {
		c.end = e
		var other *websocket.Conn
		switch e.By {
		case SideClient:
			other = c.up
		case SideServer:
			other = c.client
		}
		if other != nil && e.Code >= 0 && e.Err == nil {
			// Close waits for the peer's close frame, which the app-server never sends:
			// the frame goes out, the wait is cut short.
			go func() {
				done := make(chan struct{})
				go func() { other.Close(e.Code, e.Reason); close(done) }()
				select {
				case <-done:
				case <-time.After(100 * time.Millisecond):
				}
				c.client.CloseNow()
				c.up.CloseNow()
			}()
		} else {
			c.client.CloseNow()
			c.up.CloseNow()
		}
		c.stop()
	})
}

// pump relays messages from src to dst, queueing each for the tap before it is
// written, so a request is always tapped before its response.
func (c *conn) pump(ctx context.Context, start time.Time, src, dst *websocket.Conn, dir wire.Direction, queue chan<- *item) {
	srcSide, dstSide := SideClient, SideServer
	if dir == wire.ServerToClient {
		srcSide, dstSide = SideServer, SideClient
	}
	for {
		typ, data, err := src.Read(ctx)
		if err != nil {
			if ctx.Err() == nil { // else the ending is decided already (or is a shutdown)
				c.finish(readEnd(srcSide, err))
			}
			return
		}
		at := time.Since(start)
		if !c.budget.take(ctx, int64(len(data))) {
			return
		}
		it := &item{dir: dir, typ: typ, data: data, at: at}
		if dir == wire.ServerToClient {
			it.written = make(chan struct{})
		}
		select {
		case queue <- it:
		case <-ctx.Done():
			return
		}
		err = dst.Write(ctx, typ, data)
		if it.written != nil {
			it.delivered = err == nil
			close(it.written)
		}
		if err != nil {
			c.undelivered[dir-1].Add(1)
			if ctx.Err() == nil {
				c.finish(End{By: dstSide, Code: -1})
			}
			return
		}
	}
}

// readEnd classifies a read error: a close frame, a drop, or a failure.
func readEnd(side Side, err error) End {
	var ce websocket.CloseError
	switch {
	case errors.As(err, &ce):
		return End{By: side, Code: ce.Code, Reason: ce.Reason}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed),
		errors.Is(err, context.Canceled), isReset(err):
		return End{By: side, Code: -1}
	}
	return End{By: side, Code: -1, Err: err}
}

// tapper classifies, pairs and taps the queue in order, calling Idle whenever it
// has caught up.
func (c *conn) tapper(queue <-chan *item, tap Tap) End {
	var (
		pairer wire.Pairer
		seq    int64
		e      = End{Frames: map[wire.Direction]int64{}}
	)
	for it := range queue {
		c.budget.give(int64(len(it.data)))
		seq++
		e.Frames[it.dir]++
		f := wire.Frame{Seq: seq, Time: it.at, Dir: it.dir, Line: it.data}
		if it.written != nil {
			<-it.written
			if it.delivered {
				e.LastDelivered = seq
			} else {
				f.Undelivered = true
			}
		}
		if it.typ == websocket.MessageBinary {
			f.Msg = wire.Message{Kind: wire.KindRaw, Reason: BinaryReason}
		} else {
			f.Msg = wire.Classify(f.Line)
			pairer.Observe(f.Dir, &f.Msg)
		}
		if tap == nil || e.TapErr != nil {
			continue
		}
		if e.TapErr = tap.Frame(&f); e.TapErr == nil && len(queue) == 0 {
			e.TapErr = tap.Idle()
		}
	}
	return e
}

// relayPing answers a ping only once the other hop has answered a ping of its own
// (or not at all when it does not within PingTimeout): liveness is end to end.
func (c *conn) relayPing(ctx context.Context, other *websocket.Conn) bool {
	if other == nil {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, c.relay.pingTimeout())
	defer cancel()
	return other.Ping(ctx) == nil
}
