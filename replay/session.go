package replay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/codexrec/codexrec/wire"
)

// session is the state of one Serve.
type session struct {
	srv     *Server
	sc      *Script
	match   MatcherFunc
	rules   ruleSet // the compiled Server.Rules, already part of match
	repeats []Repeat
	w       io.Writer
	out     *bufio.Writer

	// Client side.
	matched []bool
	skipped []bool       // notifications passed over (skip.go); nil until one is
	liveID  []wire.ID    // the live id each matched client frame came with
	lo      int          // first unmatched client frame; in ordered mode, frames matched
	lines   int          // client lines read
	ix      *threadIndex // unordered mode's threads
	keyDone map[string]int
	keyList map[string][]int

	// Requests outside any thread (float.go); nil under Strict or when none.
	floating  []bool
	floatList []int     // their indices in Script.Client
	floatLo   int       // floatList before it is matched
	early     []bool    // in order: requests matched while a frame before them had not come
	holding   []heldMsg // live requests waiting for their turn (hold.go)
	respOf    []int     // index in Script.Server of a floating request's response, or -1

	// Server side.
	queues    []*queue
	respQ     []*queue // responses sent on their own, by the request's index, until it comes
	respPool  []queue  // their storage
	respItems []int
	drained   int         // single-frame queues emptied since the last compaction (send.go)
	timed     bool        // gaps or delays apply
	due       []time.Time // when each timed frame may go, once it is ready
	nextDue   time.Time   // earliest due time of a waiting frame, zero when none
	rush      bool        // ignore due times (the client has gone)
	sentReq   map[wire.ID]int
	plans     map[int]*framePlan
	held      [][]byte // reordered frames waiting for the next one
	wrote     bool     // a server frame has been written
	overload  map[string]int
	subst     []substitution
	restores  []substitution // path placeholders to real paths (paths.go), once CODEX_HOME is known
	paths     Paths          // what they are (paths.go)
	restoring bool           // placeholders are restored
	cleanup   []func()       // run when Serve returns
	ended     bool           // a fault ended the stream
	hungUp    bool           // Server.Hangup was closed
	gone      bool           // the client closed its end: writes are dropped

	lastInput time.Time // when the client last sent a line (or the session began)
	forced    []bool    // server frames released by patience

	mismatches []*Mismatch
	contested  map[int64]contest // expected frames (by seq) a mismatch was compared with
	handoff    *HandoffError     // Server.Handoff: where the session was handed off
}

// queue is a run of server frames sent in recorded order.
type queue struct {
	items    []int
	head     int
	lastTime time.Duration // recorded time of the last frame sent
}

func newSession(srv *Server, w io.Writer) *session {
	sc := srv.Script
	s := &session{srv: srv, sc: sc, w: w, out: bufio.NewWriterSize(w, 64<<10),
		matched: make([]bool, len(sc.Client)), liveID: make([]wire.ID, len(sc.Client)),
		sentReq: map[wire.ID]int{}, overload: map[string]int{}}
	s.match = srv.Matcher
	if s.match == nil {
		s.match = srv.Mode.Matcher()
	}
	s.withRules()
	var idle []Fault
	s.plans, idle = planFaults(sc, srv.Faults)
	if srv.Log != nil {
		for _, f := range idle {
			fmt.Fprintf(srv.Log, "replay: warning: fault %s chooses nothing in %s (segment %d)\n", f, sc.Name, sc.Segment)
		}
	}
	for _, p := range s.plans {
		if p.delay > 0 {
			s.timed = true
		}
	}
	if srv.Speed > 0 {
		s.timed = true
	}
	if s.timed {
		s.due = make([]time.Time, len(sc.Server))
	}
	s.initFloat()
	if !srv.Unordered {
		q := &queue{items: make([]int, 0, len(sc.Server))}
		for i := range sc.Server {
			if a := sc.Server[i].Answers; a >= 0 {
				// A response never holds back what follows it: anything recorded
				// after it waits for its request anyway (see ready), and the
				// answer to a request matched early goes as soon as it came. It
				// joins the queues when its request comes (accept).
				s.respQueue(a, i)
				continue
			}
			q.items = append(q.items, i)
		}
		s.queues = append(s.queues, q)
		return s
	}
	s.ix = sc.threads()
	s.keyDone, s.keyList = map[string]int{}, map[string][]int{}
	for i := range sc.Client {
		k := s.ix.client[i].key
		s.keyList[k] = append(s.keyList[k], i)
	}
	byKey := map[string]*queue{}
	for i := range sc.Server {
		if s.floatResponse(i) {
			s.respQueue(sc.Server[i].Answers, i)
			continue
		}
		k := s.ix.server[i].key
		q := byKey[k]
		if q == nil {
			q = &queue{}
			byKey[k] = q
			s.queues = append(s.queues, q)
		}
		q.items = append(q.items, i)
	}
	return s
}

// respQueue sets response i (to request a) apart from the queues until a comes.
func (s *session) respQueue(a, i int) {
	if s.respQ == nil {
		s.respQ = make([]*queue, len(s.sc.Client))
		s.respPool = make([]queue, 0, len(s.sc.Client))
		s.respItems = make([]int, 0, len(s.sc.Client))
	}
	if len(s.respPool) == cap(s.respPool) || len(s.respItems) == cap(s.respItems) {
		s.respQ[a] = &queue{items: []int{i}}
		return
	}
	s.respItems = append(s.respItems, i)
	s.respPool = append(s.respPool, queue{items: s.respItems[len(s.respItems)-1 : len(s.respItems) : len(s.respItems)]})
	s.respQ[a] = &s.respPool[len(s.respPool)-1]
}

type readResult struct {
	line []byte
	err  error
}

func (s *session) run(ctx context.Context, in io.Reader) error {
	lines := make(chan readResult, 64)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		r := wire.NewReader(in)
		for {
			line, err := r.ReadLine()
			select {
			case lines <- readResult{line, err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	s.lastInput = time.Now()
	if err := s.pump(); err != nil {
		return err
	}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	var readErr error
	hangup := s.srv.Hangup
	var grace *time.Timer
	var graceC <-chan time.Time
	defer func() {
		if grace != nil {
			grace.Stop()
		}
	}()
	for !s.ended {
		var wake <-chan time.Time
		at := s.nextDue
		if d := s.stallDeadline(); !d.IsZero() && (at.IsZero() || d.Before(at)) {
			at = d
		}
		if d := s.heldDeadline(); !d.IsZero() && (at.IsZero() || d.Before(at)) {
			at = d
		}
		if !at.IsZero() {
			timer.Reset(time.Until(at))
			wake = timer.C
		}
		eof := false
		select {
		case r := <-lines:
			s.lastInput = time.Now()
			if grace != nil {
				grace.Reset(HangupGrace)
			}
			if len(r.line) > 0 {
				if err := s.receive(r.line); err != nil {
					return s.handedOff(err)
				}
			}
			if r.err != nil {
				eof = true
				if r.err != io.EOF {
					readErr = fmt.Errorf("replay %s: reading the client: %w", s.sc.Name, r.err)
				}
			}
		case now := <-wake:
			if d := s.heldDeadline(); !d.IsZero() && !now.Before(d) {
				s.lastInput = now // the next one gets its own patience
				s.releaseHeld(fmt.Sprintf("the client sent nothing for %v while it waited for its turn (patience)", s.patience()))
			} else {
				s.release(now)
			}
		case <-hangup:
			// Read on for what the client wrote before it hung up; its EOF is
			// normally a moment away.
			hangup, s.hungUp = nil, true
			grace = time.NewTimer(HangupGrace)
			graceC = grace.C
		case <-graceC:
			eof = true
		case <-ctx.Done():
			return ctx.Err()
		}
		if wake != nil && !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		if s.handoff != nil {
			return s.handedOff(nil)
		}
		if s.srv.FailFast && len(s.mismatches) > 0 {
			s.out.Flush()
			return s.result(false)
		}
		if eof {
			// The client has gone: send what is due without waiting for gaps,
			// as the real server finishes writing before it exits.
			s.rush = true
			for s.releaseHeld("the client ended before the messages recorded before it came") {
			}
		}
		if err := s.pump(); err != nil {
			return err
		}
		if s.handoff != nil {
			return s.handedOff(nil)
		}
		if eof {
			break
		}
	}
	if err := s.finish(); err != nil {
		return err
	}
	if readErr != nil {
		return readErr
	}
	return s.result(!s.ended)
}

// handedOff is Serve's error once the session is handed off (Server.Handoff): what
// is due is flushed first. Any other err is returned as it is.
func (s *session) handedOff(err error) error {
	if s.handoff == nil {
		return err
	}
	for _, b := range s.held {
		if werr := s.write(b); werr != nil {
			return werr
		}
	}
	s.held = nil
	if ferr := s.flush(); ferr != nil {
		return ferr
	}
	return s.handoff
}

// finish sends what reordering held back and flushes; a fault's EOF closes out.
func (s *session) finish() error {
	for _, b := range s.held {
		if err := s.write(b); err != nil {
			return err
		}
	}
	s.held = nil
	if err := s.flush(); err != nil {
		return err
	}
	if s.ended {
		if c, ok := s.w.(io.Closer); ok {
			c.Close()
		}
	}
	return nil
}

// flush sends what is buffered.
func (s *session) flush() error {
	if s.gone {
		return nil
	}
	if err := s.out.Flush(); err != nil {
		return s.writeErr(err)
	}
	return nil
}

func (s *session) writeErr(err error) error {
	if clientGone(err) {
		// The client closed its end (it is ending, often with a SIGTERM on the way):
		// nothing it could read is left to send; its input is still read to the end
		// and judged as usual.
		s.gone = true
		return nil
	}
	return fmt.Errorf("replay %s: writing to the client: %w", s.sc.Name, err)
}

// clientGone reports whether a write failed because the client closed its end.
func clientGone(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, os.ErrClosed)
}

// result is Serve's error: mismatches and, when checkUnused, frames never received.
func (s *session) result(checkUnused bool) error {
	var errs []error
	if n := len(s.mismatches); n > 0 {
		errs = append(errs, fmt.Errorf("replay %s: %d client message(s) matched nothing (first: %w): %w",
			s.sc.Name, n, s.mismatches[0], ErrNoMatch))
	}
	if checkUnused {
		var unused []*ClientFrame
		s.reportSkipped()
		s.reportFloating()
		for i := s.lo; i < len(s.sc.Client); i++ {
			if !s.done(i) && !s.floats(i) {
				unused = append(unused, &s.sc.Client[i])
			}
		}
		if len(unused) > 0 {
			s.reportUnused(unused)
			if !s.srv.AllowUnused {
				errs = append(errs, unusedError(s.sc.Name, unused, s.contested))
			}
		}
	}
	return errors.Join(errs...)
}
