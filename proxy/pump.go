package proxy

import (
	"bytes"
	"io"
	"os"
	"sync"
	"time"

	"codexrec/internal/wire"
)

// session is the state of one Run shared by its goroutines.
//
// Frames are tapped by the pump that forwarded them, right after the write, rather
// than by a goroutine of their own: handing each read to another goroutine woke a
// second thread per round trip, and on a small machine that wake-up competed with the
// client and the server for the CPU. (Handing only big reads to a tapper goroutine
// measured no faster: recording is CPU-bound, and the CPU is shared anyway.) Frames
// are tapped in the order they were queued, which is before they were forwarded;
// whoever finds the tap busy leaves its frames to the one tapping, who looks at the
// queue again before letting go.
type session struct {
	p *Proxy

	mu      sync.Mutex      // guards pending, queued and closed
	pending [][]*wire.Frame // read, not yet tapped, in read order
	queued  int             // bytes in pending
	closed  bool            // no more frames may be queued

	tapMu  sync.Mutex  // held while tapping, so Tap and Idle never run at once
	pairer wire.Pairer // guarded by tapMu
	res    *Result     // TapErr guarded by tapMu
	dirty  bool        // tapped since the last Idle; guarded by tapMu
}

// maxQueued bounds the bytes waiting for the tap, whatever QueueSize says.
const maxQueued = 64 << 20

func newSession(p *Proxy, res *Result) *session {
	return &session{p: p, res: res}
}

// enqueue queues frames for the tap before they are forwarded, so that a request is
// always tapped before its response. When QueueSize reads or maxQueued bytes are
// waiting, the caller taps them itself first (back-pressure: reading pauses, nothing
// is dropped). It reports false once the session is over.
func (s *session) enqueue(frames []*wire.Frame, size int) bool {
	s.mu.Lock()
	for (len(s.pending) >= s.p.queueSize() || s.queued >= maxQueued) && !s.closed {
		s.mu.Unlock()
		s.tapMu.Lock()
		s.tapPending()
		s.tapMu.Unlock()
		s.mu.Lock()
	}
	ok := !s.closed
	if ok {
		s.pending = append(s.pending, frames)
		s.queued += size
	}
	s.mu.Unlock()
	return ok
}

// drain taps what is queued unless someone is tapping already; that one checks the
// queue again after letting go, so no frame is left behind. Once the queue is empty
// the tap has caught up: Idle runs.
func (s *session) drain() {
	for {
		if !s.tapMu.TryLock() {
			return
		}
		s.tapPending()
		if s.caughtUp() {
			s.callIdle()
		}
		s.tapMu.Unlock()
		if s.caughtUp() {
			return
		}
	}
}

func (s *session) caughtUp() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending) == 0
}

// tapPending numbers, classifies, pairs and taps every queued frame in read order.
// The caller holds tapMu.
func (s *session) tapPending() {
	for {
		s.mu.Lock()
		batches := s.pending
		s.pending, s.queued = nil, 0
		s.mu.Unlock()
		if len(batches) == 0 {
			return
		}
		for _, batch := range batches {
			for _, f := range batch {
				s.p.seq++
				f.Seq = s.p.seq
				if f.Dir != wire.Stderr {
					f.Msg = wire.Classify(f.Line)
					s.pairer.Observe(f.Dir, &f.Msg)
				}
				if s.p.Tap != nil && s.res.TapErr == nil {
					s.res.TapErr = s.p.Tap(f)
				}
			}
		}
		s.dirty = true
	}
}

// callIdle runs Idle if anything was tapped since it last ran. The caller holds tapMu.
func (s *session) callIdle() {
	if !s.dirty {
		return
	}
	s.dirty = false
	if s.p.Idle != nil && s.res.TapErr == nil {
		s.res.TapErr = s.p.Idle()
	}
}

// stop ends queueing, taps what is still queued and runs the final Idle.
func (s *session) stop() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.tapMu.Lock()
	defer s.tapMu.Unlock()
	s.tapPending()
	s.callIdle()
}

// pumpClient forwards the client's lines to the child's stdin and closes it at the
// client's EOF. Lines are queued for the tap before they are forwarded.
func (s *session) pumpClient(client io.Reader, childIn *os.File, eof chan<- struct{}) {
	defer childIn.Close()
	defer close(eof) // before the child sees EOF, so its exit cannot be seen first
	s.pump(client, wire.ClientToServer, childIn, true)
}

// pumpOut forwards one of the child's output streams to w until EOF. When w fails
// (the client stopped reading) it keeps draining and tapping, and returns the error.
func (s *session) pumpOut(src io.Reader, dir wire.Direction, w io.Writer) error {
	return s.pump(src, dir, w, false)
}

// maxBatch bounds the complete lines gathered into one write.
const maxBatch = 256 << 10

// pump reads lines from src, queues them for the tap, writes them to w, then taps
// them (drain). Lines that are already complete in the read buffer are read,
// queued and written together (ReadLines): none of them waits for anything, they are
// copied once, and the syscalls per line drop to what a plain cat makes. stopOnEnd
// says to stop reading once the session is over (the client side: nothing can reach
// the child any more).
func (s *session) pump(src io.Reader, dir wire.Direction, w io.Writer, stopOnEnd bool) error {
	r := wire.NewReaderSize(src, 1<<20)
	var werr error
	for {
		chunk, err := r.ReadLines(maxBatch)
		if len(chunk) > 0 {
			at := time.Since(s.p.Start)
			var frames []*wire.Frame
			for rest := chunk; len(rest) > 0; {
				n := bytes.IndexByte(rest, '\n') + 1
				if n == 0 {
					n = len(rest)
				}
				// Capped, so a tap appending to one line cannot spill into the next; the
				// chunk itself is forwarded below and taps never write into it.
				frames = append(frames, &wire.Frame{Dir: dir, Line: rest[:n:n], Time: at})
				rest = rest[n:]
			}
			if !s.enqueue(frames, len(chunk)) && stopOnEnd {
				return werr
			}
			if werr == nil && w != nil {
				_, werr = w.Write(chunk)
			}
			s.drain()
		}
		if err != nil {
			return werr
		}
	}
}
