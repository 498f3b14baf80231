package proxy

import (
	"bytes"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codexrec/codexrec/wire"
)

// session is the state of one Run shared by its goroutines.
//
// Each pump queues what it read, then forwards it, then wakes the tapper goroutine,
// which classifies, pairs and taps frames in queue order. Queueing before the write
// keeps a request ahead of its response; waking the tapper only after the write keeps
// the wake-up, and all recording work, off the forwarding path: forwarding waits for
// recording only when the queue is full (back-pressure, nothing dropped).
type session struct {
	p *Proxy

	mu      sync.Mutex // guards pending, queued, held and closed
	room    sync.Cond  // signalled when the tapper takes the queue
	pending []*batch   // read, not yet tapped, in read order
	spare   []*batch   // the tapper's last pending, given back for reuse
	queued  int        // bytes in pending
	held    bool       // a pump waited for room since the tapper last took the queue
	closed  bool       // no more frames may be queued

	// What Proxy.ReuseLines reuses (see freeList).
	freeBufs, freeSmall, freeCarried freeList[[]byte]
	freeBatches                      freeList[*batch]

	wake   chan struct{} // a read was forwarded
	tapped chan struct{} // closed when the tapper has tapped everything and returned
	pairer wire.Pairer   // the tapper's
	res    *Result       // TapErr, LastDelivered, Undelivered are the tapper's until tapped is closed

	// The tapper waits for the outcome of a write to the client before tapping what
	// it carried, so a frame is recorded as delivered only when it was.
	written   sync.Cond   // signalled (under mu) when a tracked write has finished
	waiting   atomic.Bool // the tapper waits on written
	abandoned bool        // under mu: writes still pending will never finish

	// progress counts reads and tapped frames: while it moves, the session is still
	// draining (a slow tap holding a pump back), not stuck on a grandchild's pipe.
	progress atomic.Uint64
}

// maxQueued bounds the memory waiting for the tap (the buffers reads hold), whatever
// QueueSize says, when Proxy.MaxQueued is zero.
const maxQueued = 64 << 20

func (p *Proxy) maxQueued() int {
	if p.MaxQueued > 0 {
		return p.MaxQueued
	}
	return maxQueued
}

// batch is one read: forwarded with one write, and the lines it completed, tapped
// together. The first may be carried: a line that began in earlier reads.
type batch struct {
	chunk   []byte
	carried []byte
	frames  []wire.Frame
	// owners counts who still uses chunk, the pump (until its write) and the tapper;
	// with Proxy.ReuseLines the last one hands the buffer back.
	owners atomic.Int32
	// track says the write's outcome matters (to the client); state is pending, then
	// delivered or undelivered.
	track bool
	state atomic.Int32
}

const (
	pending int32 = iota
	delivered
	undelivered
)

// outcome waits until b's write has finished (or will never finish) and reports
// whether it delivered b.
func (s *session) outcome(b *batch) bool {
	if st := b.state.Load(); st != pending {
		return st == delivered
	}
	s.mu.Lock()
	s.waiting.Store(true)
	for b.state.Load() == pending && !s.abandoned {
		s.written.Wait()
	}
	s.waiting.Store(false)
	s.mu.Unlock()
	return b.state.Load() == delivered
}

// wrote records the outcome of b's write and wakes the tapper if it waits for it.
func (s *session) wrote(b *batch, ok bool) {
	st := undelivered
	if ok {
		st = delivered
	}
	b.state.Store(st)
	if b.track && s.waiting.Load() {
		s.mu.Lock()
		s.written.Broadcast()
		s.mu.Unlock()
	}
}

// readSize is the buffer a pump reads into; the lines that arrived together, up to
// this much, are forwarded with one write.
const readSize = 256 << 10

// With Proxy.ReuseLines, read buffers, carried lines and batches go back to free
// lists of the session's own once both the pump and the tapper are done with them:
// the pump then allocates nothing per read, and so is never made to assist the
// collector (whose cycles the tapper's garbage starts) while it forwards. (A
// sync.Pool is emptied by every cycle, and each refill of a 256 KB buffer then costs
// an assist.)
type freeList[T any] chan T

// get returns a free item, or fresh() when there is none.
func (l freeList[T]) get(fresh func() T) T {
	select {
	case v := <-l:
		return v
	default:
		return fresh()
	}
}

// put keeps v for reuse, unless the list is full.
func (l freeList[T]) put(v T) {
	select {
	case l <- v:
	default:
	}
}

const (
	freeBuffers = 4   // 1 MB of read buffers
	freeSmall   = 256 // 4 MB of small buffers
	freeCarried = 4   // carried lines of up to maxCarried
	freeBatches = 256
)

// smallRead is the most a read may bring to be copied into a small buffer of its
// own, so that the pump keeps its read buffer: a queue of a thousand small frames
// then holds 16 MB, not a thousand read buffers.
const smallRead = 16 << 10

// maxCarried is the largest carried line whose memory is kept for the next.
const maxCarried = 1 << 20

// maxPooledFrames bounds the frames slice a reused batch keeps.
const maxPooledFrames = 1024

func newReadBuffer() []byte  { return make([]byte, 0, readSize) }
func newSmallBuffer() []byte { return make([]byte, 0, smallRead) }
func newBatch() *batch       { return &batch{frames: make([]wire.Frame, 0, 8)} }

// release drops one owner of b; the last returns the read buffer when reuse is on,
// and a long carried line's mapped memory (wire.Release) in either case.
func (s *session) release(b *batch) {
	if b.owners.Add(-1) != 0 {
		return
	}
	reuse := s.p.ReuseLines
	if poisonReleased && reuse {
		clear(b.chunk) // a use after release then shows as NUL bytes
		if !wire.IsLarge(b.carried) {
			clear(b.carried)
		}
	}
	switch {
	case wire.IsLarge(b.carried):
		wire.Release(b.carried)
	case reuse && cap(b.carried) >= wire.CarryMin && cap(b.carried) <= maxCarried:
		s.freeCarried.put(b.carried[:0])
	}
	if !reuse {
		return
	}
	switch cap(b.chunk) {
	case readSize:
		s.freeBufs.put(b.chunk[:0])
	case smallRead:
		s.freeSmall.put(b.chunk[:0])
	}
	if cap(b.frames) <= maxPooledFrames {
		clear(b.frames[:cap(b.frames)])
		*b = batch{frames: b.frames[:0]}
		s.freeBatches.put(b)
	}
}

// poisonReleased is a test hook (export_test.go).
var poisonReleased bool

func newSession(p *Proxy, res *Result) *session {
	s := &session{p: p, res: res, wake: make(chan struct{}, 1), tapped: make(chan struct{}),
		freeBufs: make(freeList[[]byte], freeBuffers), freeSmall: make(freeList[[]byte], freeSmall),
		freeCarried: make(freeList[[]byte], freeCarried), freeBatches: make(freeList[*batch], freeBatches)}
	s.room.L = &s.mu
	s.written.L = &s.mu
	go s.tapper()
	return s
}

// enqueue queues frames for the tap before they are forwarded, so that a request is
// always tapped before its response. While QueueSize reads or MaxQueued bytes are
// waiting it blocks (back-pressure: reading pauses, nothing is dropped). It reports
// false once the session is over.
func (s *session) enqueue(b *batch) bool {
	size := cap(b.chunk) + len(b.carried) // the memory the batch holds until tapped
	s.mu.Lock()
	for (len(s.pending) >= s.p.queueSize() || s.queued >= s.p.maxQueued()) && !s.closed {
		// The tapper is woken after a write, and the write that would wake it may
		// itself wait on this read (the other pump's write to a server that is
		// blocked writing what this pump would read): a full queue wakes it now.
		s.forwarded()
		s.held = true
		s.room.Wait()
	}
	ok := !s.closed
	if ok {
		s.pending = append(s.pending, b)
		s.queued += size
	}
	s.mu.Unlock()
	return ok
}

// over reports whether the session has ended.
func (s *session) over() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// forwarded wakes the tapper, unless it is due to run anyway.
func (s *session) forwarded() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// tapper taps the queue whenever a pump forwarded something, and runs Idle each time
// it has caught up. It returns once the session is closed and the queue is empty.
//
// It runs on a thread of lower priority than the pumps' (lowerPriority), so that
// on busy CPUs forwarding comes first, but only while forwarding does not wait for
// it: once a pump found the queue full, a goroutine at the pumps' priority taps
// until the queue is empty, and hands back (a burst tapped at the lower priority
// slowed forwarding down to its pace). One of the two taps at a time, in turn.
func (s *session) tapper() {
	lowerPriority()
	defer close(s.tapped)
	burst, caughtUp := make(chan []*batch), make(chan bool)
	defer close(burst)
	go func() {
		for batches := range burst {
			closed := false
			for len(batches) > 0 {
				s.tapBatches(batches)
				batches, closed, _ = s.take()
			}
			caughtUp <- closed
		}
	}()
	dirty := false
	for {
		batches, closed, held := s.take()
		if len(batches) > 0 && held {
			burst <- batches
			closed = <-caughtUp
			batches, dirty = nil, true
		}
		if len(batches) > 0 {
			s.tapBatches(batches)
			dirty = true
			continue // caught up only when a look finds nothing
		}
		if dirty {
			dirty = false
			if tap := s.p.Tap; tap != nil && s.res.TapErr == nil {
				s.res.TapErr = tap.Idle()
			}
		}
		if closed {
			return
		}
		<-s.wake
	}
}

// take takes what the queue holds; held says a pump waited for room since the last
// take.
func (s *session) take() (batches []*batch, closed, held bool) {
	s.mu.Lock()
	batches, closed, held = s.pending, s.closed, s.held
	s.pending, s.spare, s.queued, s.held = s.spare, nil, 0, false
	s.room.Broadcast()
	s.mu.Unlock()
	return batches, closed, held
}

// tapBatches numbers, classifies and taps the frames of batches, then gives the
// slice back for queueing.
func (s *session) tapBatches(batches []*batch) {
	tap := s.p.Tap
	for _, b := range batches {
		lost := b.track && !s.outcome(b)
		for i := range b.frames {
			f := &b.frames[i]
			s.p.Seq++
			f.Seq = s.p.Seq
			if b.track {
				if lost {
					f.Undelivered = true
					s.res.Undelivered++
				} else {
					s.res.LastDelivered = f.Seq
				}
			}
			if f.Dir != wire.Stderr {
				f.Msg = wire.Classify(f.Line)
				s.pairer.Observe(f.Dir, &f.Msg)
			}
			if tap != nil && s.res.TapErr == nil {
				s.res.TapErr = tap.Frame(f)
			}
			s.progress.Add(1)
		}
		s.release(b)
	}
	clear(batches)
	s.mu.Lock()
	s.spare = batches[:0] // two slices taking turns: queueing allocates nothing
	s.mu.Unlock()
}

// stop ends queueing and waits for the tapper to tap what is queued and run the
// final Idle.
func (s *session) stop() {
	s.mu.Lock()
	s.closed = true
	s.room.Broadcast()
	s.abandoned = true // a write still blocked now is not waited for: undelivered
	s.written.Broadcast()
	s.mu.Unlock()
	s.forwarded()
	<-s.tapped
}

// pumpClient forwards the client's lines to the child's stdin and closes it at the
// client's EOF. Lines are queued for the tap before they are forwarded.
func (s *session) pumpClient(client io.Reader, childIn io.WriteCloser, eof chan<- struct{}) {
	defer childIn.Close()
	defer close(eof) // before the child sees EOF, so its exit cannot be seen first
	s.pump(client, wire.ClientToServer, childIn, true)
}

// pumpOut forwards one of the child's output streams to w until EOF. When w fails
// (the client stopped reading) it keeps draining and tapping, and returns the error;
// what it could not write to the client is tapped as undelivered.
func (s *session) pumpOut(src io.Reader, dir wire.Direction, w io.Writer) error {
	return s.pump(src, dir, w, false)
}

// pump reads src, queues the lines each read completed for the tap, forwards what the
// read brought, then wakes the tapper. Lines that arrived together are read, queued
// and written together, and the syscalls per line are what a plain cat makes; a line
// that takes several reads is forwarded read by read as it arrives (as a bare relay
// would) and tapped once whole (wire.Framer collects it). The bytes are read into the
// buffer that is forwarded and tapped, copied once more only without
// Proxy.ReuseLines. stopOnEnd says to stop reading once the session is over (the
// client side: nothing can reach the child any more).
func (s *session) pump(src io.Reader, dir wire.Direction, w io.Writer, stopOnEnd bool) error {
	framer := wire.NewFramer(src)
	framer.Alloc = func(int) []byte { return s.freeCarried.get(func() []byte { return nil }) }
	// The read buffer: kept while reads are small (copied out), handed over with a
	// large read (replaced). Without ReuseLines, every read is copied out. The first
	// is small, replaced by a full one once a read fills it: a stream that carries
	// little (stderr, a session that ends at once) never allocates a full one.
	buf := newSmallBuffer()
	var werr error
	for {
		if buf == nil {
			buf = s.freeBufs.get(newReadBuffer)
		}
		data, carried, whole, err := framer.Next(buf)
		s.progress.Add(1)
		grow := cap(buf) < readSize && len(data) == cap(buf)
		switch {
		case !s.p.ReuseLines:
			data, whole = cloneRead(data, whole)
			if wire.IsLarge(carried) {
				// A tap may keep the line: it must be the collector's to free.
				large := carried
				carried = bytes.Clone(large)
				wire.Release(large)
			}
		case len(data) <= smallRead:
			data, whole = copyRead(s.freeSmall.get(newSmallBuffer), data, whole)
		default:
			buf = nil // the batch has it now
		}
		if grow {
			buf = nil // a full one next
		}
		// Without ReuseLines nothing is put back, so the lists stay empty: fresh ones.
		b := s.freeBatches.get(newBatch)
		b.chunk, b.carried, b.track = data, carried, dir == wire.ServerToClient
		if carried != nil || len(whole) > 0 {
			at := time.Since(s.p.Start)
			if carried != nil {
				b.frames = append(b.frames, wire.Frame{Dir: dir, Line: carried[:len(carried):len(carried)], Time: at})
			}
			for rest := whole; len(rest) > 0; {
				n := bytes.IndexByte(rest, '\n') + 1
				// Capped, so a tap appending to one line cannot spill into the next; the
				// read itself is forwarded below and taps never write into it.
				b.frames = append(b.frames, wire.Frame{Dir: dir, Line: rest[:n:n], Time: at})
				rest = rest[n:]
			}
			b.owners.Store(2)
			if !s.enqueue(b) {
				b.owners.Store(1) // never to be tapped
				if stopOnEnd {
					return werr
				}
			}
		} else {
			b.owners.Store(1) // nothing to tap: the pump is its only user
			if stopOnEnd && s.over() {
				return werr
			}
		}
		if werr == nil && w != nil && len(data) > 0 {
			_, werr = w.Write(data)
		}
		queued := len(b.frames) > 0
		s.wrote(b, werr == nil)
		s.release(b) // b may be reused from here on
		if queued {
			s.forwarded()
		}
		if err != nil {
			return werr
		}
	}
}

// cloneRead copies a read and the lines in it, for taps that keep frames.
func cloneRead(data, whole []byte) ([]byte, []byte) {
	if len(data) == 0 {
		return nil, nil
	}
	return copyRead(make([]byte, 0, len(data)), data, whole)
}

// copyRead copies a read and the lines in it into dst. whole is a slice of data, so
// their capacities (to the same buffer's end) give its offset.
func copyRead(dst, data, whole []byte) ([]byte, []byte) {
	c := append(dst[:0], data...)
	if len(whole) == 0 {
		return c, nil
	}
	off := cap(data) - cap(whole)
	return c, c[off : off+len(whole)]
}
