package export

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strconv"
	"time"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// OTLP/JSON (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding): the
// protobuf TracesData in JSON with lowerCamelCase names, enums as integers, 64-bit
// integers as strings, and trace and span ids as hex (not base64).
type otlpTraces struct {
	ResourceSpans []otlpResourceSpans `json:"resourceSpans"`
}

type otlpResourceSpans struct {
	Resource   otlpResource     `json:"resource"`
	ScopeSpans []otlpScopeSpans `json:"scopeSpans"`
}

type otlpResource struct {
	Attributes []otlpKV `json:"attributes"`
}

type otlpScopeSpans struct {
	Scope otlpScope  `json:"scope"`
	Spans []otlpSpan `json:"spans"`
}

type otlpScope struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

type otlpSpan struct {
	TraceID      string      `json:"traceId"`
	SpanID       string      `json:"spanId"`
	ParentSpanID string      `json:"parentSpanId,omitempty"`
	Name         string      `json:"name"`
	Kind         int         `json:"kind"`
	Start        string      `json:"startTimeUnixNano"`
	End          string      `json:"endTimeUnixNano"`
	Attributes   []otlpKV    `json:"attributes,omitempty"`
	Events       []otlpEvent `json:"events,omitempty"`
	Status       *otlpStatus `json:"status,omitempty"`
}

type otlpEvent struct {
	Time       string   `json:"timeUnixNano"`
	Name       string   `json:"name"`
	Attributes []otlpKV `json:"attributes,omitempty"`
}

type otlpStatus struct {
	Code    int    `json:"code"` // 1 ok, 2 error
	Message string `json:"message,omitempty"`
}

type otlpKV struct {
	Key   string    `json:"key"`
	Value otlpValue `json:"value"`
}

type otlpValue struct {
	String *string `json:"stringValue,omitempty"`
	Int    *string `json:"intValue,omitempty"`
	Bool   *bool   `json:"boolValue,omitempty"`
}

// Span kinds and status codes of the OTLP protocol.
const (
	spanInternal = 1
	spanServer   = 2
	spanClient   = 3
	statusOK     = 1
	statusError  = 2
)

func str(k, v string) otlpKV { return otlpKV{Key: k, Value: otlpValue{String: &v}} }
func num(k string, v int64) otlpKV {
	s := strconv.FormatInt(v, 10)
	return otlpKV{Key: k, Value: otlpValue{Int: &s}}
}
func flag(k string, v bool) otlpKV { return otlpKV{Key: k, Value: otlpValue{Bool: &v}} }

// WriteOTLP writes recs as OTLP/JSON traces, one trace per recording: a root span for
// the session, a span per turn (thread and turn ids as attributes) and per JSON-RPC
// request with its response (method, id, errors), notifications and stderr lines as
// events of the turn or session they belong to, findings and redactions as events
// of their message's span. An OpenTelemetry collector's otlpjson receiver or
// Jaeger reads the file; ids are derived from the recording, so exporting twice gives
// the same trace.
func WriteOTLP(w io.Writer, recs []*recorder.Recording, opts Options) error {
	i := 0
	return writeOTLPDoc(w, func() (*otlpResourceSpans, error) {
		if i == len(recs) {
			return nil, nil
		}
		s, err := prepare(recs[i], opts)
		if err != nil {
			return nil, err
		}
		i++
		rs := s.otlp(opts)
		return &rs, nil
	})
}

type turnSpan struct {
	span       *otlpSpan
	start, end time.Duration
}

func (s *session) otlp(opts Options) otlpResourceSpans {
	h := s.rec.Header
	seed := s.name + "\x00" + h.Started
	if h.Socket != nil {
		seed += "\x00" + h.Socket.Session + "\x00" + strconv.Itoa(h.Socket.Connection)
	}
	sum := sha256.Sum256([]byte(seed))
	traceID := hex.EncodeToString(sum[:16])
	spanID := func(kind string, n int64, extra string) string {
		x := sha256.Sum256([]byte(seed + "\x00" + kind + "\x00" + strconv.FormatInt(n, 10) + "\x00" + extra))
		return hex.EncodeToString(x[:8])
	}
	nanos := func(d time.Duration) string { return strconv.FormatInt(s.at(d).UnixNano(), 10) }

	res := otlpResource{Attributes: []otlpKV{str("service.name", "codex app-server"), str("codexrec.recording", s.name)}}
	if h.CodexVersion != "" {
		res.Attributes = append(res.Attributes, str("service.version", h.CodexVersion))
	}
	if h.Scenario != "" {
		res.Attributes = append(res.Attributes, str("codexrec.scenario", s.mask.Text(h.Scenario)))
	}
	transport := "stdio"
	if h.Socket != nil {
		transport = h.Socket.Transport
	}
	root := &otlpSpan{TraceID: traceID, SpanID: spanID("session", 0, ""), Name: "app-server session",
		Kind: spanInternal, Start: nanos(0), End: nanos(s.end),
		Attributes: []otlpKV{str("codexrec.transport", transport)}}
	if tr := s.rec.Trailer; tr != nil {
		root.Attributes = append(root.Attributes, str("codexrec.ended", string(tr.Ended)), num("process.exit.code", int64(tr.ExitCode)))
	}

	// Turns first: their spans are the parents of what happens in them.
	bySeq := map[int64]*message{}
	turns := map[[2]string]*turnSpan{}
	var order [][2]string
	for _, m := range s.msgs {
		bySeq[m.row.Seq] = m
	}
	for _, m := range s.msgs {
		r := m.row
		if r.Turn == "" {
			continue
		}
		k := [2]string{r.Thread, r.Turn}
		t := turns[k]
		if t == nil {
			t = &turnSpan{start: r.Time, end: r.Time}
			t.span = &otlpSpan{TraceID: traceID, SpanID: spanID("turn", int64(len(order)), r.Thread+"\x00"+r.Turn),
				ParentSpanID: root.SpanID, Name: "turn", Kind: spanInternal,
				Attributes: []otlpKV{str("codex.thread.id", r.Thread), str("codex.turn.id", r.Turn)}}
			turns[k] = t
			order = append(order, k)
		}
		t.start, t.end = min(t.start, r.Time), max(t.end, r.Time)
		if r.Method == "turn/start" && r.Kind == wire.KindResponse && r.Pair != 0 {
			if req := bySeq[r.Pair]; req != nil {
				t.start = min(t.start, req.row.Time)
			}
		}
		if r.Method == "turn/completed" && m.json {
			if st := gjson.GetBytes(m.content, "params.turn.status"); st.Type == gjson.String {
				t.span.Attributes = append(t.span.Attributes, str("codex.turn.status", st.Str))
				if st.Str == "failed" {
					t.span.Status = &otlpStatus{Code: statusError, Message: gjson.GetBytes(m.content, "params.turn.error.message").Str}
				}
			}
		}
	}
	parentOf := func(m *message) *otlpSpan {
		r := m.row
		if r.Turn != "" {
			return turns[[2]string{r.Thread, r.Turn}].span
		}
		if r.Method == "turn/start" && r.Kind == wire.KindRequest && r.Pair != 0 {
			if resp := bySeq[r.Pair]; resp != nil && resp.row.Turn != "" {
				return turns[[2]string{resp.row.Thread, resp.row.Turn}].span
			}
		}
		return root
	}

	var reqSpans []*otlpSpan
	spanOfSeq := map[int64]*otlpSpan{}
	for _, m := range s.msgs {
		r := m.row
		switch {
		case r.Dir == wire.Stderr:
			root.Events = append(root.Events, otlpEvent{Time: nanos(r.Time), Name: "stderr",
				Attributes: []otlpKV{num("codexrec.seq", r.Seq), str("codexrec.text", string(m.content))}})
		case r.Kind == wire.KindRequest:
			sp := &otlpSpan{TraceID: traceID, SpanID: spanID("request", r.Seq, ""), ParentSpanID: parentOf(m).SpanID,
				Name: r.Method, Kind: spanClient, Start: nanos(r.Time), End: nanos(s.end),
				Attributes: []otlpKV{str("rpc.system", "jsonrpc"), str("rpc.method", r.Method),
					str("rpc.jsonrpc.request_id", string(r.ID)), str("codexrec.direction", r.Dir.String()),
					num("codexrec.seq", r.Seq)}}
			if r.Dir == wire.ServerToClient {
				sp.Kind = spanServer // the server asks, the client serves (approvals)
			}
			if r.Thread != "" {
				sp.Attributes = append(sp.Attributes, str("codex.thread.id", r.Thread))
			}
			if r.Turn != "" {
				sp.Attributes = append(sp.Attributes, str("codex.turn.id", r.Turn))
			}
			if r.Pair == 0 {
				sp.Attributes = append(sp.Attributes, flag("codexrec.unanswered", true))
			} else if resp := bySeq[r.Pair]; resp != nil {
				sp.End = nanos(resp.row.Time)
				sp.Attributes = append(sp.Attributes, num("codexrec.response_seq", resp.row.Seq))
				if resp.row.Kind == wire.KindError {
					code := gjson.GetBytes(resp.content, "error.code").Int()
					msg := gjson.GetBytes(resp.content, "error.message").Str
					sp.Attributes = append(sp.Attributes, num("rpc.jsonrpc.error_code", code), str("rpc.jsonrpc.error_message", msg))
					sp.Status = &otlpStatus{Code: statusError, Message: msg}
				} else {
					sp.Status = &otlpStatus{Code: statusOK}
				}
				spanOfSeq[resp.row.Seq] = sp
			}
			spanOfSeq[r.Seq] = sp
			reqSpans = append(reqSpans, sp)
		case r.Kind == wire.KindNotification:
			attrs := []otlpKV{num("codexrec.seq", r.Seq), str("codexrec.direction", r.Dir.String())}
			if r.Item != "" {
				attrs = append(attrs, str("codex.item.id", r.Item))
			}
			if r.Summary != "" {
				attrs = append(attrs, str("codexrec.summary", r.Summary))
			}
			p := parentOf(m)
			p.Events = append(p.Events, otlpEvent{Time: nanos(r.Time), Name: r.Method, Attributes: attrs})
			spanOfSeq[r.Seq] = p
		case r.Kind == wire.KindResponse || r.Kind == wire.KindError:
			if spanOfSeq[r.Seq] == nil { // unpaired
				root.Events = append(root.Events, otlpEvent{Time: nanos(r.Time), Name: "unpaired " + r.Kind.String(),
					Attributes: []otlpKV{num("codexrec.seq", r.Seq), str("rpc.jsonrpc.request_id", string(r.ID))}})
			}
		default:
			root.Events = append(root.Events, otlpEvent{Time: nanos(r.Time), Name: r.Kind.String() + " message",
				Attributes: []otlpKV{num("codexrec.seq", r.Seq), str("codexrec.direction", r.Dir.String()),
					str("codexrec.text", string(m.content))}})
		}
		for _, n := range m.notes {
			sp := spanOfSeq[r.Seq]
			if sp == nil {
				sp = root
			}
			attrs := []otlpKV{num("codexrec.seq", r.Seq), str("codexrec.rule", n.Rule)}
			for _, kv := range [][2]string{{"codexrec.severity", n.Severity}, {"codexrec.pointer", n.Pointer},
				{"codexrec.reason", n.Reason}, {"codexrec.detail", n.Detail}} {
				if kv[1] != "" {
					attrs = append(attrs, str(kv[0], kv[1]))
				}
			}
			sp.Events = append(sp.Events, otlpEvent{Time: nanos(r.Time), Name: "codexrec." + string(n.Type), Attributes: attrs})
		}
	}

	spans := []otlpSpan{*root}
	for _, k := range order {
		t := turns[k]
		t.span.Start, t.span.End = nanos(t.start), nanos(t.end)
		spans = append(spans, *t.span)
	}
	for _, sp := range reqSpans {
		spans = append(spans, *sp)
	}
	return otlpResourceSpans{Resource: res, ScopeSpans: []otlpScopeSpans{{
		Scope: otlpScope{Name: "codexrec", Version: opts.Creator}, Spans: spans}}}
}
