package proxy

import (
	"io"
	"os"
	"sync"
	"time"

	"codexrec/internal/wire"
)

// session is the state of one Run shared by its goroutines.
type session struct {
	p     *Proxy
	queue chan *wire.Frame
	done  chan struct{} // closed once no more frames may be queued
	mu    sync.RWMutex  // held for reading while queueing, so stop cannot close queue mid-send
}

// enqueue hands a copy of line to the tap, blocking while the queue is full. It
// reports false once the session is over.
func (s *session) enqueue(dir wire.Direction, line []byte, at time.Time) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	select {
	case <-s.done:
		return false
	default:
	}
	f := &wire.Frame{Dir: dir, Line: line, Time: at.Sub(s.p.Start)}
	select {
	case s.queue <- f:
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

// consume taps frames in queue order, numbering and pairing them.
func (s *session) consume(res *Result) {
	var pairer wire.Pairer
	for f := range s.queue {
		s.p.seq++
		f.Seq = s.p.seq
		if f.Dir != wire.Stderr {
			f.Msg = wire.Classify(f.Line)
			pairer.Observe(f.Dir, &f.Msg)
		}
		if s.p.Tap != nil && res.TapErr == nil {
			res.TapErr = s.p.Tap(f)
		}
		if s.p.Idle != nil && len(s.queue) == 0 && res.TapErr == nil {
			res.TapErr = s.p.Idle()
		}
	}
}

// pumpClient forwards the client's lines to the child's stdin and closes it at the
// client's EOF. Lines are queued for the tap before they are forwarded.
func (s *session) pumpClient(client io.Reader, childIn *os.File, eof chan<- struct{}) {
	defer close(eof)
	defer childIn.Close()
	r := wire.NewReader(client)
	broken := false
	for {
		line, err := r.ReadLine()
		if len(line) > 0 {
			if !s.enqueue(wire.ClientToServer, line, time.Now()) {
				return
			}
			if !broken {
				if _, werr := childIn.Write(line); werr != nil {
					broken = true // the child closed its stdin; keep reading so its exit decides the end
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// pumpOut forwards one of the child's output streams to w until EOF. When w fails
// (the client stopped reading) it keeps draining and tapping, and returns the error.
func (s *session) pumpOut(src io.Reader, dir wire.Direction, w io.Writer) error {
	r := wire.NewReader(src)
	var werr error
	for {
		line, err := r.ReadLine()
		if len(line) > 0 {
			s.enqueue(dir, line, time.Now())
			if werr == nil && w != nil {
				_, werr = w.Write(line)
			}
		}
		if err != nil {
			return werr
		}
	}
}
