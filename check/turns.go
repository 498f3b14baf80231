package check

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
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
	id, thread              string
	startedSeq, responseSeq int64
	items                   map[string]*item
	itemOrder               []string // started items in order, to report deterministically
	cut                     string   // "interrupted" or "steered" when the client cut the turn short
	completedSeq            int64
	hadResponse             bool
}

func (t *threads) closedTurn(id string) *turn {
	if t.open[id] != nil {
		return nil // the common case: an event of a turn in progress
	}
	return t.closedByID[id]
}

func (t *threads) close(tr *turn) {
	delete(t.open, tr.id)
	tr.items, tr.itemOrder = nil, nil
	if t.closedByID == nil {
		t.closedByID = map[string]*turn{}
	}
	t.closedByID[tr.id] = tr
	if len(t.closed) < closedMemory {
		t.closed = append(t.closed, tr)
		return
	}
	delete(t.closedByID, t.closed[t.next].id)
	t.closed[t.next] = tr
	t.next = (t.next + 1) % closedMemory
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
	if s.res.TurnStatus == nil {
		s.res.TurnStatus = map[string]int{}
	}
	s.res.TurnStatus[intern(status)]++
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
			Message: "turn failed: " + oneLine(sanitize.MaskText(p.turn.Get("error.message").Str), 200)})
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
			Item:    cmp.Or(p.itemID, p.item.Get("id").Str),
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
