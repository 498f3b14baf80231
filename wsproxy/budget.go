package wsproxy

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/coder/websocket"
)

// DefaultMemoryBudget is the default of Relay.MemoryBudget: 512 MiB.
const DefaultMemoryBudget = 512 << 20

// Budget bounds the bytes of the messages held in memory, read but not yet done
// with (tapped and written), across every connection that shares it. A read takes
// its room from the budget as the message arrives, chunk by chunk; when the budget
// is spent the read waits (back-pressure: the peer's writes block in the socket)
// until another message is done with and its bytes are given back.
//
// One message may overdraw the budget at a time, and only one already begun: a
// connection that cannot finish the message it is reading while every other
// holder waits too would otherwise wait forever. So the bytes held stay under the
// budget plus one message (the read limit).
type Budget struct {
	mu    sync.Mutex
	max   int64
	used  int64
	peak  int64
	over  bool          // a message is overdrawing
	room  chan struct{} // closed and replaced whenever bytes are given back
	waits int64
}

// NewBudget is a budget of max bytes; max <= 0 means DefaultMemoryBudget.
func NewBudget(max int64) *Budget {
	if max <= 0 {
		max = DefaultMemoryBudget
	}
	return &Budget{max: max, room: make(chan struct{})}
}

// Max is the budget's size in bytes.
func (b *Budget) Max() int64 { return b.max }

// Used is the bytes held now; Peak the most held at once so far; Waits how many
// times a read waited for room.
func (b *Budget) Used() int64 { b.mu.Lock(); defer b.mu.Unlock(); return b.used }
func (b *Budget) Peak() int64 { b.mu.Lock(); defer b.mu.Unlock(); return b.peak }
func (b *Budget) Waits() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.waits
}

// take takes n bytes, waiting for room while the budget is spent. begun says the
// caller holds part of a message it is reading: it may then take the overdraft
// when free (over is set, to be given back by endOverdraft).
func (b *Budget) take(ctx context.Context, n int64, begun bool, over *bool) error {
	waited := false
	for {
		b.mu.Lock()
		ok := b.used+n <= b.max || b.used == 0 || *over
		// Overdrawing is needed only while the budget is not overdrawn already: past
		// it, a finished message holds the excess and will give it back.
		if !ok && begun && !b.over && b.used <= b.max {
			b.over, *over, ok = true, true, true
		}
		if ok {
			b.used += n
			b.peak = max(b.peak, b.used)
			b.mu.Unlock()
			return nil
		}
		if !waited {
			b.waits++
			waited = true
		}
		room := b.room
		b.mu.Unlock()
		select {
		case <-room:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (b *Budget) endOverdraft(over *bool) {
	if !*over {
		return
	}
	b.mu.Lock()
	b.over, *over = false, false
	close(b.room)
	b.room = make(chan struct{})
	b.mu.Unlock()
}

// Release gives back n bytes taken by ReadMessage.
func (b *Budget) Release(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	close(b.room)
	b.room = make(chan struct{})
	b.mu.Unlock()
}

// firstChunk is the room a message's read takes first; it doubles as the message
// grows.
const firstChunk = 32 << 10

// ReadMessage reads one whole message from c into memory taken from b, chunk by
// chunk, waiting while b is spent: the message is never read ahead of its room.
// held is what was taken (the buffer's capacity), to Release once the message is
// done with; on an error nothing is held. activity, when set, is called as bytes
// arrive.
func ReadMessage(ctx context.Context, c *websocket.Conn, b *Budget, activity func()) (typ websocket.MessageType, data []byte, held int64, err error) {
	typ, r, err := c.Reader(ctx)
	if err != nil {
		return 0, nil, 0, err
	}
	if activity != nil {
		activity()
	}
	var over bool
	defer b.endOverdraft(&over)
	var probe [512]byte
	for {
		if len(data) == cap(data) && len(data) > 0 {
			// Full: the message may end here; growing first would hold twice
			// its size.
			n, err := r.Read(probe[:])
			if n == 0 && errors.Is(err, io.EOF) {
				return typ, data, held, nil
			}
			if n == 0 && err != nil {
				b.Release(held)
				return 0, nil, 0, err
			}
			if err := b.grow(ctx, &data, &held, &over); err != nil {
				return 0, nil, 0, err
			}
			data = append(data, probe[:n]...)
			if activity != nil {
				activity()
			}
			if errors.Is(err, io.EOF) {
				return typ, data, held, nil
			}
			if err != nil {
				b.Release(held)
				return 0, nil, 0, err
			}
			continue
		}
		if len(data) == cap(data) {
			if err := b.grow(ctx, &data, &held, &over); err != nil {
				return 0, nil, 0, err
			}
		}
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if n > 0 && activity != nil {
			activity()
		}
		if errors.Is(err, io.EOF) {
			return typ, data, held, nil
		}
		if err != nil {
			b.Release(held)
			return 0, nil, 0, err
		}
	}
}

// Take takes n bytes whole, waiting while the budget is spent (one taking alone
// always passes). Give them back with Release.
func (b *Budget) Take(ctx context.Context, n int64) error {
	var over bool
	return b.take(ctx, n, false, &over)
}

// grow doubles data's capacity (to firstChunk at first) in room taken from b; on
// an error, what was held is given back.
func (b *Budget) grow(ctx context.Context, data *[]byte, held *int64, over *bool) error {
	grow := max(int64(cap(*data)), firstChunk)
	if err := b.take(ctx, grow, len(*data) > 0, over); err != nil {
		b.Release(*held)
		*held = 0
		return err
	}
	*held += grow
	nb := make([]byte, len(*data), int64(cap(*data))+grow)
	copy(nb, *data)
	*data = nb
	return nil
}
