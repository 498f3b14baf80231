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
type session struct {
	p     *Proxy
	queue chan []*wire.Frame // lines read together travel together
	done  chan struct{}      // closed once no more frames may be queued
	mu    sync.RWMutex       // held for reading while queueing, so stop cannot close queue mid-send
}

// enqueue hands frames to the tap, blocking while the queue is full. It reports
// false once the session is over.
func (s *session) enqueue(frames []*wire.Frame) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	select {
	case <-s.done:
		return false
	default:
	}
	select {
	case s.queue <- frames:
		return true
	case <-s.done:
		return false
	}
}

// stop ends queueing; frames already queued are still tapped.
func (s *session) stop() {
	close(s.done)
	s.mu.Lock()
	close(s.queue)
	s.mu.Unlock()
}

// consume taps frames in queue order, numbering and pairing them. Idle runs once the
// tap has had no new frame for IdleDelay, so a burst costs one flush, not one per frame.
func (s *session) consume(res *Result) {
	var pairer wire.Pairer
	idle := time.NewTimer(time.Hour)
	idle.Stop()
	dirty := false
	callIdle := func() {
		dirty = false
		if s.p.Idle != nil && res.TapErr == nil {
			res.TapErr = s.p.Idle()
		}
	}
	for {
		var batch []*wire.Frame
		var ok bool
		if dirty {
			select {
			case batch, ok = <-s.queue:
			case <-idle.C:
				callIdle()
				continue
			}
		} else {
			batch, ok = <-s.queue
		}
		if !ok {
			break
		}
		for _, f := range batch {
			s.p.seq++
			f.Seq = s.p.seq
			if f.Dir != wire.Stderr {
				f.Msg = wire.Classify(f.Line)
				pairer.Observe(f.Dir, &f.Msg)
			}
			if s.p.Tap != nil && res.TapErr == nil {
				res.TapErr = s.p.Tap(f)
			}
		}
		if !dirty {
			dirty = true
			idle.Reset(s.p.idleDelay())
		}
	}
	idle.Stop()
	if dirty {
		callIdle()
	}
}

// pumpClient forwards the client's lines to the child's stdin and closes it at the
// client's EOF. Lines are queued for the tap before they are forwarded.
func (s *session) pumpClient(client io.Reader, childIn *os.File, eof chan<- struct{}) {
	defer close(eof)
	defer childIn.Close()
	s.pump(client, wire.ClientToServer, childIn, true)
}

// pumpOut forwards one of the child's output streams to w until EOF. When w fails
// (the client stopped reading) it keeps draining and tapping, and returns the error.
func (s *session) pumpOut(src io.Reader, dir wire.Direction, w io.Writer) error {
	return s.pump(src, dir, w, false)
}

// maxBatch bounds the complete lines gathered into one write.
const maxBatch = 256 << 10

// pump reads lines from src, queues them for the tap, then writes them to w. Lines
// that are already complete in the read buffer are read, queued and written together
// (ReadLines): none of them waits for anything, they are copied once, and the syscalls
// and hand-offs per line drop to what a plain cat makes. stopOnEnd says to stop
// reading once the session is over (the client side: nothing can reach the child any
// more).
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
			if !s.enqueue(frames) && stopOnEnd {
				return werr
			}
			if werr == nil && w != nil {
				_, werr = w.Write(chunk)
			}
		}
		if err != nil {
			return werr
		}
	}
}
