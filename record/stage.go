package record

import (
	"sync"

	"github.com/codexrec/codexrec/wire"
)

// stage is the second half of the pipeline of a session that sanitizes, on a
// goroutine of its own: the tap's goroutine validates each frame (Session.Frame;
// when a Validator is set) and hands it over, with what validation found, and the
// stage sanitizes and writes it, so that the two use two CPUs. The stage runs at the
// pumps' priority, where the tap's thread runs lower (proxy): under other
// processes' load, a sanitizer on the tap's thread fell behind and the queue's
// back-pressure slowed forwarding (bulk sanitize under a busy loop per CPU 0.37 of
// its quiet throughput; with the stage 1.1, same run). A frame's line is copied
// into the stage's buffer, since the proxy reuses its memory once the tap returns;
// a line longer than maxHeld is not copied: its hand-over waits until the stage has
// written it. At most maxStaged bytes wait (then the hand-over waits too), so what
// is left when the server exits stays small. The first error stops the stage:
// later frames are dropped, and the next hand-over (or the end) returns it.
type stage struct {
	s *Session

	mu       sync.Mutex
	more     sync.Cond // frames, a flush or the end are waiting
	room     sync.Cond // the stage took the queue, or finished a frame handed over whole
	items    []staged
	arena    []byte // the waiting frames' lines
	spare    []staged
	spareBuf []byte
	flush    bool  // flush the writer once what waits is written
	closed   bool  // no more frames
	err      error // the first error
	pushed   int64 // frames handed over
	finished int64 // frames the stage is done with
	done     chan struct{}
}

// staged is one frame handed over: its line at arena[off:off+n], or in f.Line when
// direct (the caller's memory, which it keeps until the stage is done with it).
type staged struct {
	f      wire.Frame
	v      verdict
	off, n int
	direct bool
}

// maxStaged bounds the bytes of lines waiting for the stage.
const maxStaged = 256 << 10

func startStage(s *Session) *stage {
	st := &stage{s: s, done: make(chan struct{})}
	st.more.L, st.room.L = &st.mu, &st.mu
	go st.run()
	return st
}

// push hands f over; an error is the stage's first.
func (st *stage) push(f *wire.Frame, v verdict) error {
	direct := len(f.Line) > maxHeld
	st.mu.Lock()
	defer st.mu.Unlock()
	for len(st.arena) >= maxStaged && st.err == nil && !st.closed {
		st.room.Wait()
	}
	if st.err != nil {
		return st.err
	}
	it := staged{f: *f, v: v, direct: direct}
	if !direct {
		it.off, it.n = len(st.arena), len(f.Line)
		st.arena = append(st.arena, f.Line...)
		it.f.Line = nil
	}
	st.items = append(st.items, it)
	st.pushed++
	id := st.pushed
	st.more.Signal()
	for direct && st.finished < id {
		st.room.Wait()
	}
	return nil
}

// idle asks for the writer to be flushed once everything handed over is written.
func (st *stage) idle() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.flush = true
	st.more.Signal()
	return st.err
}

// stop waits for the stage to write everything handed over and end; it returns the
// stage's first error.
func (st *stage) stop() error {
	st.mu.Lock()
	st.closed = true
	st.more.Signal()
	st.mu.Unlock()
	<-st.done
	return st.err
}

func (st *stage) run() {
	// At normal priority: the tapper waits for this stage when its queue is full, so
	// a lowered one lets other processes' load stall forwarding (priority inversion).
	defer close(st.done)
	for {
		st.mu.Lock()
		for len(st.items) == 0 && !st.flush && !st.closed {
			st.more.Wait()
		}
		items, arena, flush, closed := st.items, st.arena, st.flush, st.closed
		st.items, st.arena, st.flush = st.spare[:0], st.spareBuf[:0], false
		st.spare, st.spareBuf = nil, nil
		err := st.err
		st.room.Broadcast()
		st.mu.Unlock()
		for i := range items {
			it := &items[i]
			if !it.direct {
				it.f.Line = arena[it.off : it.off+it.n : it.off+it.n]
			}
			switch {
			case st.s.check != nil:
				st.s.watch(&it.f) // written already (Session.Frame)
			case err == nil:
				err = st.s.record(&it.f, it.v)
			}
			if it.direct {
				st.finish(1, err)
			}
		}
		// The frames still waiting keep their own copy: arena is reused next. (A
		// delta whose successor came in the same batch is never copied.)
		st.s.pending.keep()
		st.s.watching.keep()
		if flush && err == nil && st.s.Writer != nil {
			err = st.s.Writer.Flush()
		}
		n := 0
		for i := range items {
			if !items[i].direct {
				n++
			}
		}
		clear(items)
		st.mu.Lock()
		st.spare, st.spareBuf = items[:0], arena[:0]
		st.mu.Unlock()
		st.finish(n, err)
		if closed {
			return
		}
	}
}

// finish counts n frames done and keeps the first error.
func (st *stage) finish(n int, err error) {
	st.mu.Lock()
	st.finished += int64(n)
	if st.err == nil {
		st.err = err
	}
	st.room.Broadcast()
	st.mu.Unlock()
}
