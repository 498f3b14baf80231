package check

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"codexrec/internal/wire"
	"codexrec/recorder"
)

// closedMemory is how many completed turns are remembered to recognise late events,
// duplicate completions and early completions; older turns are forgotten.
const closedMemory = 256

type item struct {
	kind               string
	started, completed int64 // frame seqs, 0 when not seen
	stray              int64 // the first event for the item while it was not started
}

type turn struct {
	id, thread                      string
	startedSeq, responseSeq         int64
	items                           map[string]*item
	itemOrder                       []string // started items in order, to report deterministically
	cut                             string   // "interrupted" or "steered" when the client cut the turn short
	completedSeq                    int64
	hadResponse                     bool
	completedBeforeResponseReported bool
}

type serverReq struct {
	seq            int64
	method, thread string
	turn, item     string
}

// threads follows threads, their turns and items, and server requests awaiting
// serverRequest/resolved, within one server lifetime.
type threads struct {
	known   map[string]int64   // thread id -> frame that made it known
	doubt   map[string][]int64 // thread ids seen while a thread/start or fork was unanswered
	open    map[string]*turn
	closed  []*turn // ring of recently completed turns
	next    int
	srv     map[string]*serverReq // by request id as on the wire
	srvSeqs []string              // request ids in arrival order
}

func (t *threads) init() {
	t.known = map[string]int64{}
	t.doubt = map[string][]int64{}
	t.open = map[string]*turn{}
	t.srv = map[string]*serverReq{}
}

func (t *threads) closedTurn(id string) *turn {
	for _, c := range t.closed {
		if c.id == id {
			return c
		}
	}
	return nil
}

func (t *threads) close(tr *turn) {
	delete(t.open, tr.id)
	tr.items, tr.itemOrder = nil, nil
	if len(t.closed) < closedMemory {
		t.closed = append(t.closed, tr)
		return
	}
	t.closed[t.next] = tr
	t.next = (t.next + 1) % closedMemory
}

// params are the ids a server message carries, read in one pass.
type params struct {
	thread, turnID, itemID, requestID string
	turn, item                        gjson.Result
}

func readParams(msg []byte) params {
	var p params
	gjson.GetBytes(msg, "params").ForEach(func(k, v gjson.Result) bool {
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
		if id := gjson.GetBytes(msg, "result.thread.id").Str; id != "" {
			s.threads.known[strings.Clone(id)] = e.Seq
			delete(s.threads.doubt, id)
		}
		s.flushDoubt()
	case "turn/start":
		id := gjson.GetBytes(msg, "result.turn.id").Str
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
	s.threads.open[id] = tr
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
		if id := p.thread; id == "" {
			if id = gjson.GetBytes(msg, "params.thread.id").Str; id != "" {
				s.threads.known[strings.Clone(id)] = e.Seq
				delete(s.threads.doubt, id)
			}
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

func (s *state) turnStarted(e *recorder.Entry, p params) {
	id := p.turn.Get("id").Str
	if c := s.threads.closedTurn(id); c != nil {
		s.report(Finding{Rule: RuleTurnOrder, Seqs: []int64{e.Seq, c.completedSeq}, Thread: p.thread, Turn: id,
			Message: fmt.Sprintf("turn/started after the turn's turn/completed (frame %d)", c.completedSeq)})
		return
	}
	tr := s.openTurn(id, p.thread)
	if tr.startedSeq != 0 {
		s.report(Finding{Rule: RuleTurnOrder, Seqs: []int64{e.Seq, tr.startedSeq}, Thread: p.thread, Turn: id,
			Message: fmt.Sprintf("turn/started twice (first at frame %d)", tr.startedSeq)})
		return
	}
	tr.startedSeq = e.Seq
	s.foreign(e, tr, p.thread)
}

func (s *state) turnCompleted(e *recorder.Entry, p params) {
	id := p.turn.Get("id").Str
	if c := s.threads.closedTurn(id); c != nil {
		s.report(Finding{Rule: RuleDuplicateCompleted, Seqs: []int64{e.Seq, c.completedSeq}, Thread: p.thread, Turn: id,
			Message: fmt.Sprintf("a second turn/completed for the turn (first at frame %d)", c.completedSeq)})
		return
	}
	tr := s.threads.open[id]
	if tr == nil {
		s.report(Finding{Rule: RuleTurnOrder, Seqs: []int64{e.Seq}, Thread: p.thread, Turn: id,
			Message: "turn/completed for a turn never started (no turn/started, no turn/start response)"})
		tr = s.openTurn(id, p.thread)
	} else if tr.startedSeq == 0 {
		s.report(Finding{Rule: RuleTurnOrder, Seqs: []int64{e.Seq, tr.responseSeq}, Thread: p.thread, Turn: id,
			Message: fmt.Sprintf("turn/completed without turn/started (turn/start answered at frame %d)", tr.responseSeq)})
	}
	s.foreign(e, tr, p.thread)
	status := p.turn.Get("status").Str
	if status == "interrupted" && tr.cut == "" {
		tr.cut = "interrupted"
	}
	for _, iid := range tr.itemOrder {
		it := tr.items[iid]
		if it.started != 0 && it.completed == 0 {
			// Real Codex drops the item it was streaming when a turn is interrupted or
			// steered: legal, but a client waiting for item/completed waits forever.
			rule, why := RuleItemOrder, ""
			if tr.cut != "" {
				rule, why = RuleItemAbandoned, " (the turn was "+tr.cut+")"
			}
			s.report(Finding{Rule: rule, Seqs: []int64{e.Seq, it.started}, Thread: tr.thread, Turn: id, Item: iid,
				Message: fmt.Sprintf("%s item started at frame %d never completed before turn/completed%s", it.kind, it.started, why)})
		}
	}
	if status == "failed" {
		s.report(Finding{Rule: RuleTurnFailed, Seqs: []int64{e.Seq}, Thread: tr.thread, Turn: id,
			Message: "turn failed: " + oneLine(p.turn.Get("error.message").Str, 200)})
	}
	tr.completedSeq = e.Seq
	s.threads.close(tr)
}

// cutShort marks the turn a turn/interrupt or turn/steer request names.
func (s *state) cutShort(method string, params gjson.Result) {
	var id, how string
	switch method {
	case "turn/interrupt":
		id, how = params.Get("turnId").Str, "interrupted"
	case "turn/steer":
		id, how = params.Get("expectedTurnId").Str, "steered"
	default:
		return
	}
	if tr := s.threads.open[id]; tr != nil && tr.cut == "" {
		tr.cut = how
	}
}

// foreign flags an event whose thread is not its turn's thread.
func (s *state) foreign(e *recorder.Entry, tr *turn, thread string) {
	if thread == "" || tr.thread == "" || thread == tr.thread {
		if tr.thread == "" {
			tr.thread = thread
		}
		return
	}
	s.report(Finding{Rule: RuleForeignThread, Seqs: []int64{e.Seq}, Method: e.Msg.Method, Thread: thread, Turn: tr.id,
		Message: fmt.Sprintf("%s for turn %s carries thread %s, but the turn belongs to thread %s", e.Msg.Method, tr.id, thread, tr.thread)})
}

// turnEvent checks an item or turn event (deltas included) against its turn and item.
func (s *state) turnEvent(e *recorder.Entry, p params) {
	m := e.Msg.Method
	if c := s.threads.closedTurn(p.turnID); c != nil {
		s.report(Finding{Rule: RuleLateEvent, Seqs: []int64{e.Seq, c.completedSeq}, Method: m, Thread: p.thread, Turn: p.turnID,
			Item:    cmp2(p.itemID, p.item.Get("id").Str),
			Message: fmt.Sprintf("%s after the turn's turn/completed (frame %d)", m, c.completedSeq)})
		return
	}
	tr := s.threads.open[p.turnID]
	if tr == nil {
		s.report(Finding{Rule: RuleTurnOrder, Seqs: []int64{e.Seq}, Method: m, Thread: p.thread, Turn: p.turnID,
			Message: fmt.Sprintf("%s for a turn never started", m)})
		tr = s.openTurn(p.turnID, p.thread)
	}
	s.foreign(e, tr, p.thread)
	if !strings.HasPrefix(m, "item/") {
		return
	}
	switch m {
	case "item/started":
		id := p.item.Get("id").Str
		if it := tr.items[id]; it != nil && it.started == 0 && it.completed == 0 {
			// Its events came first (reported as delta-without-item); the start is late.
			it.kind, it.started = intern(p.item.Get("type").Str), e.Seq
			tr.itemOrder = append(tr.itemOrder, strings.Clone(id))
			s.report(Finding{Rule: RuleItemOrder, Seqs: []int64{e.Seq, it.stray}, Thread: tr.thread, Turn: tr.id, Item: id,
				Message: fmt.Sprintf("%s item started after an event for it (frame %d)", it.kind, it.stray)})
			return
		} else if it != nil {
			what, first := "started twice", it.started
			if it.completed != 0 {
				what, first = "started again after item/completed", it.completed
			}
			s.report(Finding{Rule: RuleItemOrder, Seqs: []int64{e.Seq, first}, Thread: tr.thread, Turn: tr.id, Item: id,
				Message: fmt.Sprintf("%s item %s (frame %d)", it.kind, what, first)})
			return
		}
		id = strings.Clone(id)
		tr.items[id] = &item{kind: intern(p.item.Get("type").Str), started: e.Seq}
		tr.itemOrder = append(tr.itemOrder, id)
	case "item/completed":
		id := p.item.Get("id").Str
		it := tr.items[id]
		switch {
		case it == nil:
			s.report(Finding{Rule: RuleItemOrder, Seqs: []int64{e.Seq}, Thread: tr.thread, Turn: tr.id, Item: id,
				Message: fmt.Sprintf("%s item completed but never started", p.item.Get("type").Str)})
			tr.items[strings.Clone(id)] = &item{kind: intern(p.item.Get("type").Str), completed: e.Seq}
		case it.completed != 0:
			s.report(Finding{Rule: RuleItemOrder, Seqs: []int64{e.Seq, it.completed}, Thread: tr.thread, Turn: tr.id, Item: id,
				Message: fmt.Sprintf("%s item completed twice (first at frame %d)", it.kind, it.completed)})
		default:
			it.completed = e.Seq
		}
	default:
		if p.itemID == "" {
			return
		}
		it := tr.items[p.itemID]
		switch {
		case it == nil:
			s.report(Finding{Rule: RuleDeltaWithoutItem, Seqs: []int64{e.Seq}, Method: m, Thread: tr.thread, Turn: tr.id, Item: p.itemID,
				Message: fmt.Sprintf("%s for item %s, which was never started", m, p.itemID)})
			tr.items[strings.Clone(p.itemID)] = &item{stray: e.Seq} // report each stranger once
		case it.completed != 0:
			s.report(Finding{Rule: RuleItemOrder, Seqs: []int64{e.Seq, it.completed}, Method: m, Thread: tr.thread, Turn: tr.id, Item: p.itemID,
				Message: fmt.Sprintf("%s after the item's item/completed (frame %d)", m, it.completed)})
		}
	}
}

func cmp2(a, b string) string {
	if a != "" {
		return a
	}
	return b
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
