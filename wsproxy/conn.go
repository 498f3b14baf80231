package wsproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/codexrec/codexrec/wire"
)

// Tap receives one connection's messages: a wire.Tap, whose Frame and Idle are
// called from one goroutine in the order messages were read (a message's Line is the
// exact payload, no newline added; a binary message is KindRaw with reason "binary"),
// and End, called once, last.
type Tap interface {
	wire.Tap
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
	mem         *Budget

	// For the client-bound queue's bound: messages and bytes read from the server
	// and not yet written to the client.
	pendingN, pendingB atomic.Int64
	// For the drain at shutdown: how many pumps hold a message they have begun to
	// read, and when bytes last arrived (UnixNano).
	busy       atomic.Int64
	lastActive atomic.Int64
	clientRead chan struct{} // closed when reading from the client has ended
}

// ErrSlowClient is a connection's End.Err when the relay disconnected a client
// that did not read: its queue of messages from the server reached its bound.
var ErrSlowClient = errors.New("the client did not read: its queue of messages from the server is full")

type item struct {
	dir  wire.Direction
	typ  websocket.MessageType
	data []byte
	held int64 // bytes of the budget, given back once tapped and written
	refs atomic.Int32
	at   time.Duration
	// written is closed once a client-bound message's write has finished, with
	// delivered set: the tapper waits for it, so that a message the client never got
	// is tapped as undelivered.
	written   chan struct{}
	delivered bool
}

// run relays until either side ends, then closes the other and ends the tap.
func (c *conn) run(base context.Context, info *Conn, tap Tap) {
	// The connection's own lifetime: a shutdown (base ending) lets it drain what is
	// readable before dropping it, so that what a client sent just before it hung
	// up, as the relay was being stopped, is still relayed and tapped.
	ctx, stop := context.WithCancel(context.WithoutCancel(base))
	c.stop = stop
	c.mem = c.relay.budget()
	limit := c.relay.readLimit()
	c.client.SetReadLimit(limit)
	c.up.SetReadLimit(limit)

	queue := make(chan *item, c.relay.queueSize())
	tapped := make(chan End, 1)
	go func() { tapped <- c.tapper(queue, tap) }()

	var wg sync.WaitGroup
	wg.Add(3)
	toClient := make(chan *item, c.relay.clientQueue())
	go func() { defer wg.Done(); c.writer(ctx, toClient) }()
	c.clientRead = make(chan struct{})
	go func() {
		defer wg.Done()
		defer close(c.clientRead)
		c.pump(ctx, info.Start, c.client, wire.ClientToServer, queue, nil)
	}()
	go func() {
		defer wg.Done()
		defer close(toClient)
		c.pump(ctx, info.Start, c.up, wire.ServerToClient, queue, toClient)
	}()
	select {
	case <-ctx.Done():
	case <-base.Done():
		c.drain(ctx)
		c.finish(End{By: SideShutdown, Code: -1}) // a no-op when the connection ended while draining
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

// drain returns once the connection has gone quiet after a shutdown: no message
// begun and not yet handed on, and nothing read for ShutdownGrace; or once it has
// ended, or DrainLimit has passed.
func (c *conn) drain(ctx context.Context) {
	grace := c.relay.shutdownGrace()
	if grace <= 0 {
		return
	}
	c.lastActive.Store(time.Now().UnixNano())
	limit := time.NewTimer(c.relay.drainLimit())
	defer limit.Stop()
	tick := time.NewTicker(min(grace/4, 50*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-limit.C:
			return
		case <-tick.C:
			if c.busy.Load() == 0 && time.Since(time.Unix(0, c.lastActive.Load())) >= grace {
				return
			}
		}
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

// pump relays messages from src, queueing each for the tap before it is written,
// so a request is always tapped before its response. Client-bound messages go to
// the writer through toClient, whose bound disconnects a client that does not read;
// server-bound ones are written here (a server slow to read slows the client).
func (c *conn) pump(ctx context.Context, start time.Time, src *websocket.Conn, dir wire.Direction, queue chan<- *item, toClient chan<- *item) {
	srcSide := SideClient
	if dir == wire.ServerToClient {
		srcSide = SideServer
	}
	var begun bool
	active := func() {
		c.lastActive.Store(time.Now().UnixNano())
		if !begun {
			begun = true
			c.busy.Add(1)
		}
	}
	settled := func() {
		if begun {
			begun = false
			c.busy.Add(-1)
		}
	}
	defer settled()
	for {
		settled()
		typ, data, held, err := ReadMessage(ctx, src, c.mem, active)
		if err != nil {
			if ctx.Err() == nil { // else the ending is decided already (or is a shutdown)
				c.finish(readEnd(srcSide, err))
			}
			return
		}
		it := &item{dir: dir, typ: typ, data: data, held: held, at: time.Since(start)}
		it.refs.Store(2)
		if toClient != nil {
			it.written = make(chan struct{})
		}
		select {
		case queue <- it:
		case <-ctx.Done():
			c.mem.Release(held)
			return
		}
		if toClient == nil {
			err = c.up.Write(ctx, typ, data)
			c.done(it)
			if err != nil {
				c.undelivered[dir-1].Add(1)
				if ctx.Err() == nil {
					c.finish(End{By: SideServer, Code: -1})
				}
				return
			}
			continue
		}
		n, size := c.pendingN.Add(1), c.pendingB.Add(int64(len(data)))
		full := n > int64(cap(toClient)) || (n > 1 && size > c.mem.Max()/4)
		if !full {
			select {
			case toClient <- it:
				continue
			default:
				full = true
			}
		}
		// The client has not read the messages before this one: it goes, and this
		// message with the others queued is tapped as undelivered.
		c.finish(End{By: SideClient, Code: -1, Err: fmt.Errorf("%w (%d messages, %d bytes)", ErrSlowClient, n-1, size-int64(len(data)))})
		c.delivered(it, false)
		return
	}
}

// writer writes the client-bound messages in order; once a write failed, the
// rest are undelivered.
func (c *conn) writer(ctx context.Context, toClient <-chan *item) {
	var failed bool
	for it := range toClient {
		if failed {
			c.delivered(it, false)
			continue
		}
		err := c.client.Write(ctx, it.typ, it.data)
		failed = err != nil
		c.delivered(it, !failed)
		if failed && ctx.Err() == nil {
			// A write fails once the connection is broken, or closed by the
			// client: its reading side says which, a moment later.
			select {
			case <-c.clientRead:
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			c.finish(End{By: SideClient, Code: -1})
		}
	}
}

// delivered settles a client-bound message's write.
func (c *conn) delivered(it *item, ok bool) {
	c.pendingN.Add(-1)
	c.pendingB.Add(-int64(len(it.data)))
	if !ok {
		c.undelivered[wire.ServerToClient-1].Add(1)
	}
	it.delivered = ok
	close(it.written)
	c.done(it)
}

// done is called by the tapper and by the writing side: the second gives the
// message's bytes back to the budget.
func (c *conn) done(it *item) {
	if it.refs.Add(-1) == 0 {
		c.mem.Release(it.held)
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
		if tap != nil && e.TapErr == nil {
			e.TapErr = tap.Frame(&f)
		}
		c.done(it)
		if tap != nil && e.TapErr == nil && len(queue) == 0 {
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
