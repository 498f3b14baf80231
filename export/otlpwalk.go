package export

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/internal/mask"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/view"
	"github.com/codexrec/codexrec/wire"
)

// The OTLP export streamed: a first pass learns each turn's bounds and status, each
// request's answer and where the notes belong; a second writes the session's span
// with its events as the messages come; a third writes the turns' spans (a turn is
// written out once its last event has been read, the events of a later turn read
// meanwhile are held encoded) and keeps the requests' notes, whose spans follow.
// Memory holds the turns, the requests and the notes, a few words each, not the
// recording.

// errSeqOrder: the frames' seqs do not strictly increase, so a seq does not name one
// frame; such a recording is exported read whole.
var errSeqOrder = errors.New("export: frames' seqs do not increase")

type otlpTurnInfo struct {
	thread, turn string
	start, end   time.Duration
	attrs        []otlpKV // codex.turn.status, once per turn/completed
	status       *otlpStatus
	last         int // the last message with an event in the turn's span, -1 none
}

type otlpReqInfo struct {
	seq          int64
	time         time.Duration
	dir          wire.Direction
	method       string
	id           string
	thread, turn string

	paired               bool
	respSeq              int64
	respTime             time.Duration
	respError            bool
	code                 int64
	message              string
	respThread, respTurn string
}

type otlpFirstPass struct {
	header   recorder.Header
	trailer  *recorder.Trailer
	problems []recorder.Problem
	end      time.Duration
	scenario string // masked
	turns    []*otlpTurnInfo
	turnOf   map[[2]string]int
	reqs     []otlpReqInfo // in file order, so by seq
	notes    []int         // each finding or redaction's frame (-1: none), in file order
	lastNote map[int]int   // frame -> index in notes of its last note
}

func otlpScan(rf recFile, m *mask.Masker) (*otlpFirstPass, error) {
	rd, done, err := openRecording(rf)
	if err != nil {
		return nil, err
	}
	defer done()
	fp := &otlpFirstPass{turnOf: map[[2]string]int{}, lastNote: map[int]int{}}
	var (
		b       view.Builder
		seqs    seqFrames
		frames  int
		lastSeq int64
		pending = map[int64]int{} // request seq -> index in reqs, until answered
	)
	for e, err := range rd.Entries() {
		if err != nil {
			return nil, err
		}
		fp.end = max(fp.end, e.Time)
		switch e.Type {
		case recorder.TypeFrame:
			if frames > 0 && e.Seq <= lastSeq {
				return nil, errSeqOrder
			}
			lastSeq = e.Seq
			i := frames
			frames++
			seqs.add(e.Seq)
			c := m.Frame(&e)
			masked := e
			masked.Line = append(c[:len(c):len(c)], '\n')
			r := b.Frame(&masked)
			isJSON := e.Dir != wire.Stderr && e.Msg.Kind.IsJSON() && json.Valid(c)
			ti := -1
			if r.Turn != "" {
				k := [2]string{r.Thread, r.Turn}
				var ok bool
				if ti, ok = fp.turnOf[k]; !ok {
					// The row's strings are views of the line: copies are kept.
					k = [2]string{strings.Clone(r.Thread), strings.Clone(r.Turn)}
					ti = len(fp.turns)
					fp.turnOf[k] = ti
					fp.turns = append(fp.turns, &otlpTurnInfo{thread: k[0], turn: k[1], start: r.Time, end: r.Time, last: -1})
				}
				t := fp.turns[ti]
				t.start, t.end = min(t.start, r.Time), max(t.end, r.Time)
				if r.Method == "turn/start" && r.Kind == wire.KindResponse && r.Pair != 0 {
					t.start = min(t.start, r.Time-r.Latency) // the request's time
				}
				if r.Method == "turn/completed" && isJSON {
					if st := gjson.GetBytes(c, "params.turn.status"); st.Type == gjson.String {
						t.attrs = append(t.attrs, str("codex.turn.status", strings.Clone(st.Str)))
						if st.Str == "failed" {
							t.status = &otlpStatus{Code: statusError, Message: strings.Clone(gjson.GetBytes(c, "params.turn.error.message").Str)}
						}
					}
				}
			}
			switch {
			case r.Dir == wire.Stderr:
			case r.Kind == wire.KindRequest:
				pending[r.Seq] = len(fp.reqs)
				fp.reqs = append(fp.reqs, otlpReqInfo{seq: r.Seq, time: r.Time, dir: r.Dir, method: strings.Clone(r.Method),
					id: strings.Clone(string(r.ID)), thread: strings.Clone(r.Thread), turn: strings.Clone(r.Turn)})
			case r.Kind == wire.KindNotification:
				if ti >= 0 {
					fp.turns[ti].last = i
				}
			case r.Kind == wire.KindResponse || r.Kind == wire.KindError:
				if qi, ok := pending[r.Pair]; ok && r.Pair != 0 {
					delete(pending, r.Pair)
					q := &fp.reqs[qi]
					q.paired, q.respSeq, q.respTime = true, r.Seq, r.Time
					q.respThread, q.respTurn = strings.Clone(r.Thread), strings.Clone(r.Turn)
					if r.Kind == wire.KindError {
						q.respError = true
						q.code = gjson.GetBytes(c, "error.code").Int()
						q.message = strings.Clone(gjson.GetBytes(c, "error.message").Str)
					}
				}
			}
		case recorder.TypeFinding, recorder.TypeRedaction:
			i, ok := seqs.frame(e.Seq)
			if !ok {
				i = -1
			} else {
				fp.lastNote[i] = len(fp.notes)
				m.Text(e.Reason)
				m.Text(e.Detail)
			}
			fp.notes = append(fp.notes, i)
		case recorder.TypeSegment:
			b.Segment(e.Segment)
		}
	}
	fp.header, fp.trailer, fp.problems = rd.Header(), rd.Trailer(), rd.Problems()
	if tr := fp.trailer; tr != nil {
		fp.end = max(fp.end, time.Duration(tr.Duration*float64(time.Second)))
	}
	if fp.header.Scenario != "" {
		fp.scenario = m.Text(fp.header.Scenario)
	}
	return fp, nil
}

// otlpWalk reads the recording at path once more and calls visit with each message
// (its index among the frames, its row and its notes) in file order, once its last
// note has been read, as prepare would have made it.
func otlpWalk(rf recFile, m *mask.Masker, fp *otlpFirstPass, visit func(i int, msg *message) error) error {
	m.Rewind()
	rd, done, err := openRecording(rf)
	if err != nil {
		return err
	}
	defer done()
	return walkHeld(rd, m, fp.notes, fp.lastNote, nil, visit)
}

// otlpWriter is what the passes share: the ids and times of one recording's trace.
type otlpWriter struct {
	s       *session
	fp      *otlpFirstPass
	traceID string
	seed    string
	root    string // the session span's id
	turnIDs []string
}

func (o *otlpWriter) spanID(kind string, n int64, extra string) string {
	x := sha256.Sum256([]byte(o.seed + "\x00" + kind + "\x00" + strconv.FormatInt(n, 10) + "\x00" + extra))
	return hex.EncodeToString(x[:8])
}

func (o *otlpWriter) nanos(d time.Duration) string {
	return strconv.FormatInt(o.s.at(d).UnixNano(), 10)
}

// The spans a message's own event and its notes go to: the session's, a turn's or a
// request's.
const (
	toRoot = iota
	toTurn
	toRequest
)

// place says where msg's own event (ev false: it has none) and its notes go, as
// session.otlp places them: the span kind and the turn's or request's index.
func (o *otlpWriter) place(msg *message, reqN int) (ev bool, kind, idx int) {
	r := msg.row
	switch {
	case r.Dir == wire.Stderr:
		return true, toRoot, 0
	case r.Kind == wire.KindRequest:
		return false, toRequest, reqN
	case r.Kind == wire.KindNotification:
		if r.Turn != "" {
			return true, toTurn, o.fp.turnOf[[2]string{r.Thread, r.Turn}]
		}
		return true, toRoot, 0
	case r.Kind == wire.KindResponse || r.Kind == wire.KindError:
		if r.Pair != 0 {
			reqs := o.fp.reqs
			q := sort.Search(len(reqs), func(i int) bool { return reqs[i].seq >= r.Pair })
			if q < len(reqs) && reqs[q].seq == r.Pair {
				return false, toRequest, q
			}
		}
		return true, toRoot, 0
	}
	return true, toRoot, 0
}

// events are msg's own event (when ev) and its notes' events.
func (o *otlpWriter) events(msg *message, ev bool) []otlpEvent {
	r := msg.row
	var out []otlpEvent
	if ev {
		var e otlpEvent
		switch {
		case r.Dir == wire.Stderr:
			e = otlpEvent{Time: o.nanos(r.Time), Name: "stderr",
				Attributes: []otlpKV{num("codexrec.seq", r.Seq), str("codexrec.text", bytesView(msg.content))}}
		case r.Kind == wire.KindNotification:
			attrs := []otlpKV{num("codexrec.seq", r.Seq), str("codexrec.direction", r.Dir.String())}
			if r.Item != "" {
				attrs = append(attrs, str("codex.item.id", r.Item))
			}
			if r.Summary != "" {
				attrs = append(attrs, str("codexrec.summary", r.Summary))
			}
			e = otlpEvent{Time: o.nanos(r.Time), Name: r.Method, Attributes: attrs}
		case r.Kind == wire.KindResponse || r.Kind == wire.KindError:
			e = otlpEvent{Time: o.nanos(r.Time), Name: "unpaired " + r.Kind.String(),
				Attributes: []otlpKV{num("codexrec.seq", r.Seq), str("rpc.jsonrpc.request_id", string(r.ID))}}
		default:
			e = otlpEvent{Time: o.nanos(r.Time), Name: r.Kind.String() + " message",
				Attributes: []otlpKV{num("codexrec.seq", r.Seq), str("codexrec.direction", r.Dir.String()),
					str("codexrec.text", bytesView(msg.content))}}
		}
		out = append(out, e)
	}
	for _, n := range msg.notes {
		attrs := []otlpKV{num("codexrec.seq", r.Seq), str("codexrec.rule", n.Rule)}
		for _, kv := range [][2]string{{"codexrec.severity", n.Severity}, {"codexrec.pointer", n.Pointer},
			{"codexrec.reason", n.Reason}, {"codexrec.detail", n.Detail}} {
			if kv[1] != "" {
				attrs = append(attrs, str(kv[0], kv[1]))
			}
		}
		out = append(out, otlpEvent{Time: o.nanos(r.Time), Name: "codexrec." + string(n.Type), Attributes: attrs})
	}
	return out
}

// spanOut writes one span as writeSpan does, its events as they come.
type spanOut struct {
	w      *bufio.Writer
	events int
}

func (so *spanOut) open(head otlpSpan) error {
	head.Events, head.Status = nil, nil
	b, err := json.Marshal(&head)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	so.events = 0
	_, err = so.w.Write(b[:len(b)-1]) // without its closing brace
	return err
}

func (so *spanOut) sep() {
	if so.events == 0 {
		so.w.WriteString(`,"events":[`)
	} else {
		so.w.WriteString(",")
	}
	so.events++
}

// event writes ev; a long text is written from where it lies, a piece at a time.
func (so *spanOut) event(ev *otlpEvent) error {
	so.sep()
	long := -1
	for i, kv := range ev.Attributes {
		if kv.Value.String != nil && len(*kv.Value.String) > dataChunk {
			long = i
		}
	}
	if long < 0 {
		b, err := json.Marshal(ev)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		_, err = so.w.Write(b)
		return err
	}
	const mark = "\x00codexrec-long-text\x00"
	text := *ev.Attributes[long].Value.String
	e := *ev
	e.Attributes = append([]otlpKV(nil), ev.Attributes...)
	e.Attributes[long] = str(e.Attributes[long].Key, mark)
	b, err := json.Marshal(&e)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	qm, _ := json.Marshal(mark)
	pre, post, ok := bytes.Cut(b, qm)
	if !ok {
		return fmt.Errorf("export: unexpected OTLP event layout")
	}
	so.w.Write(pre)
	so.w.WriteString(`"`)
	if err := writeJSONStringContent(so.w, text); err != nil {
		return err
	}
	so.w.WriteString(`"`)
	_, err = so.w.Write(post)
	return err
}

// encoded writes an event encoded before (held for a later turn).
func (so *spanOut) encoded(b []byte) {
	so.sep()
	so.w.Write(b)
}

func (so *spanOut) close(status *otlpStatus) error {
	if so.events > 0 {
		so.w.WriteString("]")
	}
	if status != nil {
		b, err := json.Marshal(status)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		so.w.WriteString(`,"status":`)
		so.w.Write(b)
	}
	_, err := so.w.WriteString("}")
	return err
}

// streamOTLPResource writes the resourceSpans of the recording at path as
// writeResourceSpans writes session.otlp's, reading the file three times. A
// recording whose frames' seqs do not increase is refused with errSeqOrder before
// anything is written.
func streamOTLPResource(w *bufio.Writer, rf recFile, opts Options) ([]recorder.Problem, error) {
	// One masker for the three passes (rewound before each): a secret gets the
	// same placeholder wherever it shows.
	m, err := mask.New(opts.Reveal)
	if err != nil {
		return nil, err
	}
	name := m.Text(rf.name)
	fp, err := otlpScan(rf, m)
	if err != nil {
		return nil, err
	}
	h := fp.header
	s := &session{name: name, end: fp.end}
	if t, err := time.Parse(time.RFC3339Nano, h.Started); err == nil {
		s.started = t
	}
	o := &otlpWriter{s: s, fp: fp, seed: s.name + "\x00" + h.Started}
	if h.Socket != nil {
		o.seed += "\x00" + h.Socket.Session + "\x00" + strconv.Itoa(h.Socket.Connection)
	}
	sum := sha256.Sum256([]byte(o.seed))
	o.traceID = hex.EncodeToString(sum[:16])
	o.root = o.spanID("session", 0, "")
	for i, t := range fp.turns {
		o.turnIDs = append(o.turnIDs, o.spanID("turn", int64(i), t.thread+"\x00"+t.turn))
	}

	res := otlpResource{Attributes: []otlpKV{str("service.name", "codex app-server"), str("codexrec.recording", s.name)}}
	if h.CodexVersion != "" {
		res.Attributes = append(res.Attributes, str("service.version", h.CodexVersion))
	}
	if h.Scenario != "" {
		res.Attributes = append(res.Attributes, str("codexrec.scenario", fp.scenario))
	}
	for _, p := range []struct {
		prefix string
		v      any
	}{{`{"resource":`, res}, {`,"scopeSpans":[{"scope":`, otlpScope{Name: "codexrec", Version: opts.Creator}}} {
		b, err := json.Marshal(p.v)
		if err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
		w.WriteString(p.prefix)
		w.Write(b)
	}
	w.WriteString(`,"spans":[`)

	// The session's span, its events as the messages come.
	transport := "stdio"
	if h.Socket != nil {
		transport = h.Socket.Transport
	}
	root := otlpSpan{TraceID: o.traceID, SpanID: o.root, Name: "app-server session",
		Kind: spanInternal, Start: o.nanos(0), End: o.nanos(s.end),
		Attributes: []otlpKV{str("codexrec.transport", transport)}}
	if tr := fp.trailer; tr != nil {
		root.Attributes = append(root.Attributes, str("codexrec.ended", string(tr.Ended)), num("process.exit.code", int64(tr.ExitCode)))
	}
	out := &spanOut{w: w}
	if err := out.open(root); err != nil {
		return nil, err
	}
	// The first pass's lines (and the masker's memory of the delta streams, which
	// can hold a whole item's text) are garbage before the second reads.
	m.Rewind()
	debug.FreeOSMemory() // what the next pass allocates anew, not on top of what this one left
	reqN := 0
	err = otlpWalk(rf, m, fp, func(i int, msg *message) error {
		ev, kind, _ := o.place(msg, reqN)
		if msg.row.Kind == wire.KindRequest && msg.row.Dir != wire.Stderr {
			reqN++
		}
		if kind != toRoot {
			return nil
		}
		for _, e := range o.events(msg, ev) {
			if err := out.event(&e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := out.close(nil); err != nil {
		return nil, err
	}

	// The turns' spans: a turn is written once its last event is read; a later
	// turn's events read before then are held encoded.
	turnSpan := func(i int) otlpSpan {
		t := fp.turns[i]
		return otlpSpan{TraceID: o.traceID, SpanID: o.turnIDs[i], ParentSpanID: o.root, Name: "turn", Kind: spanInternal,
			Start: o.nanos(t.start), End: o.nanos(t.end),
			Attributes: append([]otlpKV{str("codex.thread.id", t.thread), str("codex.turn.id", t.turn)}, t.attrs...)}
	}
	var (
		cur      = 0
		held     = map[int][][]byte{}
		reqNotes = map[int][]otlpEvent{}
	)
	openTurn := func() error {
		w.WriteString(",")
		if err := out.open(turnSpan(cur)); err != nil {
			return err
		}
		for _, b := range held[cur] {
			out.encoded(b)
		}
		delete(held, cur)
		return nil
	}
	// advance closes the turns whose last event is at or before message i.
	advance := func(i int) error {
		for cur < len(fp.turns) && fp.turns[cur].last <= i {
			if err := out.close(fp.turns[cur].status); err != nil {
				return err
			}
			if cur++; cur < len(fp.turns) {
				if err := openTurn(); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if len(fp.turns) > 0 {
		if err := openTurn(); err != nil {
			return nil, err
		}
		if err := advance(-1); err != nil {
			return nil, err
		}
	}
	m.Rewind()
	debug.FreeOSMemory()
	reqN = 0
	err = otlpWalk(rf, m, fp, func(i int, msg *message) error {
		ev, kind, idx := o.place(msg, reqN)
		if msg.row.Kind == wire.KindRequest && msg.row.Dir != wire.Stderr {
			reqN++
		}
		switch kind {
		case toRequest:
			reqNotes[idx] = append(reqNotes[idx], o.events(msg, false)...)
		case toTurn:
			for _, e := range o.events(msg, ev) {
				switch {
				case idx == cur:
					if err := out.event(&e); err != nil {
						return err
					}
				case idx > cur:
					b, err := json.Marshal(&e)
					if err != nil {
						return fmt.Errorf("export: %w", err)
					}
					held[idx] = append(held[idx], b)
				default:
					return fmt.Errorf("export: %s: turn %d's event after its end", s.name, idx)
				}
			}
		}
		return advance(i)
	})
	if err != nil {
		return nil, err
	}
	if cur < len(fp.turns) {
		return nil, fmt.Errorf("export: %s: turn %d not ended", s.name, cur)
	}

	// The requests' spans.
	for qi := range fp.reqs {
		q := &fp.reqs[qi]
		parent := o.root
		if q.turn != "" {
			parent = o.turnIDs[fp.turnOf[[2]string{q.thread, q.turn}]]
		} else if q.method == "turn/start" && q.paired && q.respTurn != "" {
			parent = o.turnIDs[fp.turnOf[[2]string{q.respThread, q.respTurn}]]
		}
		sp := otlpSpan{TraceID: o.traceID, SpanID: o.spanID("request", q.seq, ""), ParentSpanID: parent,
			Name: q.method, Kind: spanClient, Start: o.nanos(q.time), End: o.nanos(s.end),
			Attributes: []otlpKV{str("rpc.system", "jsonrpc"), str("rpc.method", q.method),
				str("rpc.jsonrpc.request_id", q.id), str("codexrec.direction", q.dir.String()),
				num("codexrec.seq", q.seq)}, Events: reqNotes[qi]}
		if q.dir == wire.ServerToClient {
			sp.Kind = spanServer
		}
		if q.thread != "" {
			sp.Attributes = append(sp.Attributes, str("codex.thread.id", q.thread))
		}
		if q.turn != "" {
			sp.Attributes = append(sp.Attributes, str("codex.turn.id", q.turn))
		}
		if !q.paired {
			sp.Attributes = append(sp.Attributes, flag("codexrec.unanswered", true))
		} else {
			sp.End = o.nanos(q.respTime)
			sp.Attributes = append(sp.Attributes, num("codexrec.response_seq", q.respSeq))
			if q.respError {
				sp.Attributes = append(sp.Attributes, num("rpc.jsonrpc.error_code", q.code), str("rpc.jsonrpc.error_message", q.message))
				sp.Status = &otlpStatus{Code: statusError, Message: q.message}
			} else {
				sp.Status = &otlpStatus{Code: statusOK}
			}
		}
		w.WriteString(",")
		if err := writeSpan(w, &sp); err != nil {
			return nil, err
		}
	}
	_, err = w.WriteString("]}]}")
	return fp.problems, err
}
