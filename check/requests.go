package check

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/wire"
)

// answeredMemory is how many answered ids per direction are remembered to tell a
// duplicate response from a response to an id never requested. Older duplicates are
// reported as response-without-request; memory stays bounded.
const answeredMemory = 1024

type pendingRequest struct {
	seq    int64
	t      time.Duration
	method string
	thread string // params.threadId, when the request has one
	turn   string
}

type answered struct {
	id     wire.ID
	seq    int64 // the response
	method string
}

// requests pairs requests and responses per direction: server-initiated ids start at
// 0 and overlap the client's, so each direction has its own table.
type requests struct {
	pending  [2]map[wire.ID]*pendingRequest // by the request's direction
	answered [2][]answered                  // ring of recently answered ids
	next     [2]int
}

func dirIndex(d wire.Direction) int {
	if d == wire.ServerToClient {
		return 1
	}
	return 0
}

func (r *requests) init() {
	for i := range r.pending {
		r.pending[i] = make(map[wire.ID]*pendingRequest)
	}
}

func (s *state) request(e *recorder.Entry, msg []byte) {
	i := dirIndex(e.Dir)
	params := gjson.Get(view(msg), "params")
	// Strings read from a frame share its bytes; what outlives the frame is cloned so
	// the frame can be freed.
	p := &pendingRequest{seq: e.Seq, t: e.Time, method: intern(e.Msg.Method),
		thread: strings.Clone(params.Get("threadId").Str), turn: strings.Clone(params.Get("turnId").Str)}
	if old, dup := s.req.pending[i][e.Msg.ID]; dup {
		s.report(Finding{Rule: RuleDuplicateID, Seqs: []int64{e.Seq, old.seq}, Dir: e.Dir.String(),
			Method: e.Msg.Method, ID: string(e.Msg.ID), Thread: p.thread,
			Message: fmt.Sprintf("%s request id %s reuses the id of %s (frame %d), still unanswered", e.Msg.Method, e.Msg.ID, old.method, old.seq)})
	}
	s.req.pending[i][wire.ID(strings.Clone(string(e.Msg.ID)))] = p
	if e.Dir == wire.ServerToClient {
		s.serverRequest(e, p)
	} else {
		s.cutShort(p.method, params)
	}
}

func (s *state) response(e *recorder.Entry, msg []byte) {
	i := dirIndex(e.Dir.Opposite())
	id := e.Msg.ID
	req, ok := s.req.pending[i][id]
	method := ""
	var f Finding
	switch {
	case ok:
		delete(s.req.pending[i], id)
		method = req.method
		s.req.remember(i, answered{id: wire.ID(strings.Clone(string(id))), seq: e.Seq, method: method})
		f = Finding{Seqs: []int64{e.Seq, req.seq}, Thread: req.thread, Turn: req.turn}
		if e.Dir == wire.ServerToClient {
			s.clientRequestAnswered(e, req, msg)
		}
	case id == "null" && e.Msg.Kind == wire.KindError:
		// An error about a message the server could not parse has no request to pair with.
		f = Finding{Seqs: []int64{e.Seq}}
	default:
		if prev, dup := s.req.recall(i, id); dup {
			s.report(Finding{Rule: RuleDuplicateResponse, Seqs: []int64{e.Seq, prev.seq}, Dir: e.Dir.String(),
				Method: prev.method, ID: string(id),
				Message: fmt.Sprintf("id %s (%s) was already answered at frame %d", id, prev.method, prev.seq)})
		} else {
			s.report(Finding{Rule: RuleResponseNoRequest, Seqs: []int64{e.Seq}, Dir: e.Dir.String(), ID: string(id),
				Message: fmt.Sprintf("%s with id %s, which was never requested by the %s", e.Msg.Kind, id, side(e.Dir.Opposite()))})
		}
		f = Finding{Seqs: []int64{e.Seq}}
	}
	if e.Msg.Kind == wire.KindError {
		errv := gjson.Get(view(msg), "error")
		f.Rule, f.Dir, f.Method, f.ID = RuleErrorResponse, e.Dir.String(), method, string(id)
		what := "request"
		if method != "" {
			what = method
		}
		f.Message = fmt.Sprintf("%s answered with error %s: %s", what, errv.Get("code").Raw, oneLine(sanitize.MaskText(errv.Get("message").Str), 200))
		s.report(f)
	}
}

func side(d wire.Direction) string {
	if d == wire.ServerToClient {
		return "server"
	}
	return "client"
}

func (r *requests) remember(i int, a answered) {
	if len(r.answered[i]) < answeredMemory {
		r.answered[i] = append(r.answered[i], a)
		return
	}
	r.answered[i][r.next[i]] = a
	r.next[i] = (r.next[i] + 1) % answeredMemory
}

func (r *requests) recall(i int, id wire.ID) (answered, bool) {
	for _, a := range r.answered[i] {
		if a.id == id {
			return a, true
		}
	}
	return answered{}, false
}

// end reports every request still waiting when the server lifetime ends, and forgets
// the ids: a restarted server numbers its requests from 0 again.
func (r *requests) end(s *state, at time.Duration, why string) {
	for i, dir := range []wire.Direction{wire.ClientToServer, wire.ServerToClient} {
		open := make([]*pendingRequest, 0, len(r.pending[i]))
		ids := map[*pendingRequest]wire.ID{}
		for id, p := range r.pending[i] {
			open = append(open, p)
			ids[p] = id
		}
		slices.SortFunc(open, func(a, b *pendingRequest) int { return int(a.seq - b.seq) })
		for _, p := range open {
			waited := max(at-p.t, 0)
			s.report(Finding{Rule: RuleUnanswered, Seqs: []int64{p.seq}, Dir: dir.String(), Method: p.method,
				ID: string(ids[p]), Thread: p.thread, Turn: p.turn,
				Message: fmt.Sprintf("%s request %s (id %s) waited %s with no response; %s",
					side(dir), p.method, ids[p], waited.Round(time.Millisecond), why)})
		}
		r.pending[i] = make(map[wire.ID]*pendingRequest)
		r.answered[i], r.next[i] = r.answered[i][:0], 0
	}
}

// interned holds method names and item types, so remembering one costs no copy per
// frame. It is bounded: past internMax distinct names (a hostile recording), names are
// cloned instead.
var (
	interned  sync.Map
	internedN atomic.Int64
)

const internMax = 4096

func intern(s string) string {
	if v, ok := interned.Load(s); ok {
		return v.(string)
	}
	if len(s) > 200 || internedN.Load() >= internMax {
		return strings.Clone(s)
	}
	v, loaded := interned.LoadOrStore(strings.Clone(s), strings.Clone(s))
	if !loaded {
		internedN.Add(1)
	}
	return v.(string)
}

// oneLine shortens s to at most n bytes on one line, for messages quoted in findings.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = cutUTF8(s, n) + "..."
	}
	return s
}

// cutUTF8 is s cut to at most n bytes (n < len(s)) at a rune boundary.
func cutUTF8(s string, n int) string {
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
