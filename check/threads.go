package check

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

type serverReq struct {
	seq                  int64
	method, thread, turn string
}

// threads follows threads, their turns and items, and server requests awaiting
// serverRequest/resolved, within one server lifetime.
type threads struct {
	known  map[string]int64   // thread id -> frame that made it known
	doubt  map[string][]int64 // thread ids seen while a thread/start or fork was unanswered
	open   map[string]*turn
	closed []*turn // ring of recently completed turns
	next   int
	// closedByID indexes the ring.
	closedByID map[string]*turn
	srv        map[string]*serverReq // by request id as on the wire
	srvSeqs    []string              // request ids in arrival order
}

func (t *threads) init() {
	t.known = map[string]int64{}
	t.doubt = map[string][]int64{}
	t.open = map[string]*turn{}
	t.srv = map[string]*serverReq{}
}

// params are the ids a server message carries, read in one pass.
type params struct {
	thread, turnID, itemID, requestID string
	turn, item                        gjson.Result
}

func readParams(msg []byte) params {
	var p params
	gjson.Get(view(msg), "params").ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "threadId":
			p.thread = v.Str
		case "turnId":
			p.turnID = v.Str
		case "itemId":
			p.itemID = v.Str
		case "requestId":
			p.requestID = v.Raw
		case "turn":
			p.turn = v
		case "item":
			p.item = v
		}
		return true
	})
	return p
}

// clientRequestAnswered learns threads and turns from the server's responses.
func (s *state) clientRequestAnswered(e *recorder.Entry, req *pendingRequest, msg []byte) {
	if e.Msg.Kind != wire.KindResponse {
		return
	}
	switch req.method {
	case "thread/start", "thread/resume", "thread/fork":
		if id := gjson.Get(view(msg), "result.thread.id").Str; id != "" {
			s.threads.known[strings.Clone(id)] = e.Seq
			delete(s.threads.doubt, id)
		}
		s.flushDoubt()
	case "turn/start":
		id := gjson.Get(view(msg), "result.turn.id").Str
		if id == "" {
			return
		}
		if c := s.threads.closedTurn(id); c != nil {
			if !c.hadResponse {
				c.hadResponse = true
				s.report(Finding{Rule: RuleEarlyCompletion, Seqs: []int64{c.completedSeq, e.Seq}, Thread: c.thread, Turn: id,
					Message: fmt.Sprintf("turn/completed (frame %d) arrived before the turn/start response (frame %d)", c.completedSeq, e.Seq)})
			}
			return
		}
		tr := s.openTurn(id, req.thread)
		tr.responseSeq, tr.hadResponse = e.Seq, true
	}
}

func (s *state) openTurn(id, thread string) *turn {
	if tr := s.threads.open[id]; tr != nil {
		return tr
	}
	tr := &turn{id: strings.Clone(id), thread: strings.Clone(thread), items: map[string]*item{}}
	s.threads.open[tr.id] = tr
	s.res.Turns++
	return tr
}

// flushDoubt reports the threads seen while a thread was being created, once no
// thread/start or thread/fork is waiting for its answer any more.
func (s *state) flushDoubt() {
	if len(s.threads.doubt) == 0 {
		return
	}
	for _, p := range s.req.pending[0] {
		if p.method == "thread/start" || p.method == "thread/fork" {
			return
		}
	}
	for id, seqs := range s.threads.doubt {
		s.unknownThread(id, seqs)
	}
	clear(s.threads.doubt)
}

func (s *state) unknownThread(id string, seqs []int64) {
	s.report(Finding{Rule: RuleUnknownThread, Seqs: seqs, Thread: id,
		Message: fmt.Sprintf("thread %s was never started, resumed or forked in this server lifetime (%d message(s), first at frame %d)", id, len(seqs), seqs[0])})
}

// checkThread verifies that a server message's thread is one the session knows.
func (s *state) checkThread(e *recorder.Entry, id string) {
	if id == "" {
		return
	}
	if _, ok := s.threads.known[id]; ok {
		return
	}
	if seqs, ok := s.threads.doubt[id]; ok {
		if len(seqs) < 8 {
			s.threads.doubt[id] = append(seqs, e.Seq)
		}
		return
	}
	for _, p := range s.req.pending[0] {
		switch {
		case p.method == "thread/resume" && p.thread == id:
			return // notifications of a thread being resumed may precede the response
		case p.method == "thread/start" || p.method == "thread/fork":
			s.threads.doubt[strings.Clone(id)] = []int64{e.Seq}
			return
		}
	}
	s.threads.known[strings.Clone(id)] = e.Seq // report each stranger once
	s.unknownThread(id, []int64{e.Seq})
}

func (s *state) notification(e *recorder.Entry, msg []byte) {
	m := e.Msg.Method
	p := readParams(msg)
	if m == "thread/started" {
		id := gjson.Get(view(msg), "params.thread.id").Str
		if id == "" {
			id = p.thread
		}
		if id != "" {
			s.threads.known[strings.Clone(id)] = e.Seq
			delete(s.threads.doubt, id)
		}
		return
	}
	s.checkThread(e, p.thread)
	switch {
	case m == "turn/started":
		s.turnStarted(e, p)
	case m == "turn/completed":
		s.turnCompleted(e, p)
	case m == "serverRequest/resolved":
		s.resolved(p.requestID)
	case p.turnID != "" && (strings.HasPrefix(m, "item/") || strings.HasPrefix(m, "turn/")):
		s.turnEvent(e, p)
	}
}

// serverRequest remembers an approval or tool request until serverRequest/resolved.
func (s *state) serverRequest(e *recorder.Entry, p *pendingRequest) {
	if p.thread == "" {
		return // not about a thread (a token refresh): nothing to resolve
	}
	s.checkThread(e, p.thread)
	id := strings.Clone(string(e.Msg.ID))
	if _, dup := s.threads.srv[id]; !dup {
		s.threads.srvSeqs = append(s.threads.srvSeqs, id)
	}
	s.threads.srv[id] = &serverReq{seq: e.Seq, method: p.method, thread: p.thread, turn: p.turn}
}

func (s *state) resolved(id string) {
	t := &s.threads
	delete(t.srv, id)
	if len(t.srvSeqs) > 16 && len(t.srvSeqs) > 2*len(t.srv) {
		kept := t.srvSeqs[:0]
		for _, id := range t.srvSeqs {
			if _, ok := t.srv[id]; ok {
				kept = append(kept, id)
			}
		}
		t.srvSeqs = kept
	}
}

// end reports what a server lifetime left open and forgets its threads.
func (t *threads) end(s *state, why string) {
	for id, seqs := range t.doubt {
		s.unknownThread(id, seqs)
	}
	for _, id := range t.srvSeqs {
		r, ok := t.srv[id]
		if !ok {
			continue
		}
		delete(t.srv, id)
		s.report(Finding{Rule: RuleUnresolved, Seqs: []int64{r.seq}, Dir: "s2c", Method: r.method, ID: id, Thread: r.thread, Turn: r.turn,
			Message: fmt.Sprintf("%s (id %s) never got serverRequest/resolved; %s", r.method, id, why)})
	}
	open := make([]*turn, 0, len(t.open))
	for _, tr := range t.open {
		open = append(open, tr)
	}
	sortTurns(open)
	for _, tr := range open {
		var seqs []int64
		var have []string
		if tr.responseSeq != 0 {
			seqs = append(seqs, tr.responseSeq)
			have = append(have, fmt.Sprintf("turn/start answered at frame %d", tr.responseSeq))
		}
		if tr.startedSeq != 0 {
			seqs = append(seqs, tr.startedSeq)
			have = append(have, fmt.Sprintf("turn/started at frame %d", tr.startedSeq))
		}
		if len(seqs) == 0 {
			continue // known only from stray events, already reported
		}
		s.report(Finding{Rule: RuleTurnIncomplete, Seqs: seqs, Thread: tr.thread, Turn: tr.id,
			Message: fmt.Sprintf("no turn/completed (%s); %s", strings.Join(have, ", "), why)})
	}
	t.known, t.doubt, t.open, t.srv, t.srvSeqs = map[string]int64{}, map[string][]int64{}, map[string]*turn{}, map[string]*serverReq{}, nil
}

func sortTurns(ts []*turn) {
	first := func(t *turn) int64 { return min(nz(t.responseSeq), nz(t.startedSeq)) }
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && first(ts[j]) < first(ts[j-1]); j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

func nz(v int64) int64 {
	if v == 0 {
		return 1 << 62
	}
	return v
}
