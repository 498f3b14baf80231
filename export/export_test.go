package export_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"

	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/internal/jsonschema"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/codexrec/codexrec/export"
	"github.com/codexrec/codexrec/internal/testing/hostile"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// fixtures are committed recordings of the real codex: stdio sessions with turns,
// approvals (server requests) and an MCP tool call, and a WebSocket connection.
var fixtures = []string{
	"../fixtures/hermetic/0.171.0/approval-accept.jsonl",
	"../fixtures/hermetic/0.171.0/mcp-tool.jsonl",
	"../fixtures/hermetic/0.171.0/ws/plain.jsonl",
	"../fixtures/hermetic/0.163.0/interrupt.jsonl",
}

func readAll(t *testing.T, paths ...string) []*recorder.Recording {
	t.Helper()
	var recs []*recorder.Recording
	for _, p := range paths {
		rec, err := recorder.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	return recs
}

// secretKey is a GitHub token shape, made at run time so no scanner flags the source.
func secretKey() string {
	r := rand.New(rand.NewPCG(7, 11))
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := []byte("ghp_")
	for range 36 {
		b = append(b, alnum[r.IntN(len(alnum))])
	}
	return string(b)
}

// unsanitized writes a recording that was never sanitized (record --no-sanitize, or
// a hand-edited file): a secret in a request, a delta and stderr, and an error
// response. The real binary does not answer with these on demand, so it is written
// directly.
func unsanitized(t *testing.T) (string, string) {
	t.Helper()
	key := secretKey()
	path := filepath.Join(t.TempDir(), "secret.jsonl")
	w, err := recorder.Create(path, recorder.Header{Started: "2026-12-01T10:00:00Z", CodexVersion: "0.171.0"}, recorder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lines := []struct {
		dir  wire.Direction
		line string
	}{
		{wire.ClientToServer, `{"id":1,"method":"thread/start","params":{"cwd":"/w"}}`},
		{wire.ServerToClient, `{"id":1,"result":{"thread":{"id":"th1"}}}`},
		{wire.ClientToServer, `{"id":2,"method":"turn/start","params":{"threadId":"th1","input":[{"type":"text","text":"use ` + key + `"}]}}`},
		{wire.ServerToClient, `{"id":2,"result":{"turn":{"id":"tu1","status":"inProgress"}}}`},
		{wire.ServerToClient, `{"method":"item/agentMessage/delta","params":{"threadId":"th1","turnId":"tu1","itemId":"i1","delta":"token ` + key + `"}}`},
		{wire.Stderr, `WARN token=` + key},
		{wire.ClientToServer, `{"id":3,"method":"thread/read","params":{"threadId":"th1"}}`},
		{wire.ServerToClient, `{"id":3,"error":{"code":-32600,"message":"no such thread"}}`},
		{wire.ServerToClient, `{"method":"turn/completed","params":{"threadId":"th1","turn":{"id":"tu1","status":"completed"}}}`},
	}
	var p wire.Pairer
	for i, l := range lines {
		f := &wire.Frame{Seq: int64(i + 1), Time: time.Duration(i+1) * 10 * time.Millisecond, Dir: l.dir, Line: []byte(l.line + "\n")}
		if l.dir != wire.Stderr {
			f.Msg = wire.Classify(f.Line)
			p.Observe(l.dir, &f.Msg)
		}
		if err := w.WriteFrame(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(recorder.Trailer{Ended: recorder.EndClientEOF}); err != nil {
		t.Fatal(err)
	}
	return path, key
}

func exportTo(t *testing.T, f export.Format, opts export.Options, recs ...*recorder.Recording) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := export.Write(&buf, f, recs, opts); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func frameCount(recs []*recorder.Recording, stderr bool) int {
	n := 0
	for _, r := range recs {
		for _, e := range r.Frames() {
			if stderr || e.Dir != wire.Stderr {
				n++
			}
		}
	}
	return n
}

// TestHARValidates: the HAR export of committed recordings validates against the
// HAR 1.2 schema, one entry per recording, every message of the wire in order.
func TestHARValidates(t *testing.T) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile("testdata/har-1.2.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	recs := readAll(t, fixtures...)
	out := exportTo(t, export.HAR, export.Options{Creator: "test"}, recs...)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Fatalf("HAR does not validate: %v", err)
	}
	var har struct {
		Log struct {
			Entries []struct {
				Request struct {
					URL     string `json:"url"`
					Headers []struct{ Name, Value string }
				} `json:"request"`
				Messages []struct {
					Type   string  `json:"type"`
					Time   float64 `json:"time"`
					Opcode int     `json:"opcode"`
					Data   string  `json:"data"`
				} `json:"_webSocketMessages"`
				Codexrec struct {
					Transport string   `json:"transport"`
					Stderr    []string `json:"stderr"`
				} `json:"_codexrec"`
			} `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal(out, &har); err != nil {
		t.Fatal(err)
	}
	if len(har.Log.Entries) != len(recs) {
		t.Fatalf("%d entries for %d recordings", len(har.Log.Entries), len(recs))
	}
	for i, e := range har.Log.Entries {
		frames := recs[i].Frames(wire.ClientToServer, wire.ServerToClient)
		if len(e.Messages) != len(frames) {
			t.Errorf("%s: %d messages, want %d", recs[i].Name, len(e.Messages), len(frames))
			continue
		}
		for j, m := range e.Messages {
			want := "send"
			if frames[j].Dir == wire.ServerToClient {
				want = "receive"
			}
			if m.Type != want || m.Opcode != 1 || m.Data != string(wire.Content(frames[j].Line)) {
				t.Errorf("%s message %d = %s %d %.60q, want %s %.60q", recs[i].Name, j, m.Type, m.Opcode, m.Data, want, wire.Content(frames[j].Line))
			}
			if j > 0 && m.Time < e.Messages[j-1].Time {
				t.Errorf("%s message %d goes back in time", recs[i].Name, j)
			}
		}
		if n := len(recs[i].Frames(wire.Stderr)); len(e.Codexrec.Stderr) != n {
			t.Errorf("%s: %d stderr lines, want %d", recs[i].Name, len(e.Codexrec.Stderr), n)
		}
		ws := recs[i].Header.Socket != nil
		if ws != strings.HasPrefix(e.Request.URL, "ws://") || !ws && !strings.HasPrefix(e.Request.URL, "stdio:") {
			t.Errorf("%s: url %q (transport %s)", recs[i].Name, e.Request.URL, e.Codexrec.Transport)
		}
		if ws {
			n := 0
			for _, vs := range recs[i].Header.Socket.Headers {
				n += len(vs)
			}
			if len(e.Request.Headers) != n {
				t.Errorf("%s: %d request headers, want the recording's %d", recs[i].Name, len(e.Request.Headers), n)
			}
		}
	}

	// A document that breaks the schema fails it: the test can fail.
	bad := bytes.Replace(out, []byte(`"opcode": 1`), []byte(`"opcode": 9`), 1)
	doc, _ = jsonschema.UnmarshalJSON(bytes.NewReader(bad))
	if err := sch.Validate(doc); err == nil {
		t.Error("a HAR with opcode 9 validates")
	}
}

// hexIDsToBase64 turns OTLP/JSON's hex trace and span ids into protobuf JSON's base64,
// the one place where the OTLP JSON encoding departs from protojson's mapping.
func hexIDsToBase64(t *testing.T, v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if s, ok := val.(string); ok && (k == "traceId" || k == "spanId" || k == "parentSpanId") {
				b, err := hex.DecodeString(s)
				if err != nil {
					t.Fatalf("%s %q is not hex: %v", k, s, err)
				}
				x[k] = base64.StdEncoding.EncodeToString(b)
				continue
			}
			hexIDsToBase64(t, val)
		}
	case []any:
		for _, val := range x {
			hexIDsToBase64(t, val)
		}
	}
}

func decodeOTLP(t *testing.T, out []byte) *tracepb.TracesData {
	t.Helper()
	var generic any
	if err := json.Unmarshal(out, &generic); err != nil {
		t.Fatal(err)
	}
	hexIDsToBase64(t, generic)
	b, err := json.Marshal(generic)
	if err != nil {
		t.Fatal(err)
	}
	var td tracepb.TracesData
	// protojson rejects unknown fields: every name must be OTLP's.
	if err := protojson.Unmarshal(b, &td); err != nil {
		t.Fatalf("OTLP JSON does not decode into TracesData: %v", err)
	}
	return &td
}

// TestOTLPDecodes: the OTLP export decodes into the OpenTelemetry protobuf types; each
// request is a span ended by its response, turns are spans holding their requests
// and notifications, ids are well formed and parents exist.
func TestOTLPDecodes(t *testing.T) {
	secret, _ := unsanitized(t)
	recs := readAll(t, append(fixtures, secret)...)
	out := exportTo(t, export.OTLP, export.Options{}, recs...)
	if n := bytes.Count(out, []byte("\n")); n != 1 || out[len(out)-1] != '\n' {
		t.Errorf("the OTLP document spans %d lines, want one (a collector's file receiver reads a payload a line)", n)
	}
	td := decodeOTLP(t, out)
	if len(td.ResourceSpans) != len(recs) {
		t.Fatalf("%d resource spans for %d recordings", len(td.ResourceSpans), len(recs))
	}
	for i, rs := range td.ResourceSpans {
		rec := recs[i]
		spans := rs.ScopeSpans[0].Spans
		ids := map[string]bool{}
		requests, turns, events := 0, 0, 0
		for _, sp := range spans {
			if len(sp.TraceId) != 16 || len(sp.SpanId) != 8 || !bytes.Equal(sp.TraceId, spans[0].TraceId) {
				t.Fatalf("%s: span %q has trace id %x span id %x", rec.Name, sp.Name, sp.TraceId, sp.SpanId)
			}
			ids[string(sp.SpanId)] = true
			if sp.EndTimeUnixNano < sp.StartTimeUnixNano {
				t.Errorf("%s: span %s ends before it starts", rec.Name, sp.Name)
			}
			events += len(sp.Events)
			switch {
			case sp.Name == "turn":
				turns++
			case sp.Kind == tracepb.Span_SPAN_KIND_CLIENT || sp.Kind == tracepb.Span_SPAN_KIND_SERVER:
				requests++
				keys := map[string]string{}
				for _, kv := range sp.Attributes {
					keys[kv.Key] = kv.Value.GetStringValue()
				}
				if keys["rpc.method"] != sp.Name || keys["rpc.jsonrpc.request_id"] == "" {
					t.Errorf("%s: request span %s lacks method or id: %v", rec.Name, sp.Name, keys)
				}
			}
		}
		if len(ids) != len(spans) {
			t.Errorf("%s: span ids repeat", rec.Name)
		}
		for _, sp := range spans[1:] {
			if !ids[string(sp.ParentSpanId)] {
				t.Errorf("%s: span %s has no parent in the trace", rec.Name, sp.Name)
			}
		}
		var wantReq, wantNotif, wantTurns int
		turnIDs := map[string]bool{}
		for _, e := range rec.Frames() {
			switch e.Msg.Kind {
			case wire.KindRequest:
				wantReq++
			case wire.KindNotification:
				wantNotif++
				if e.Msg.Method == "turn/started" {
					turnIDs[string(e.Line)] = true
					wantTurns++
				}
			}
		}
		if requests != wantReq {
			t.Errorf("%s: %d request spans, want %d", rec.Name, requests, wantReq)
		}
		if events < wantNotif {
			t.Errorf("%s: %d events, want at least the %d notifications", rec.Name, events, wantNotif)
		}
		if turns == 0 || wantTurns > 0 && turns != wantTurns {
			t.Errorf("%s: %d turn spans, want %d", rec.Name, turns, wantTurns)
		}
	}
	// The hand-written recording's error response made its span an error.
	last := td.ResourceSpans[len(td.ResourceSpans)-1].ScopeSpans[0].Spans
	var found bool
	for _, sp := range last {
		if sp.Name == "thread/read" {
			found = true
			if sp.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || sp.Status.GetMessage() != "no such thread" {
				t.Errorf("thread/read status = %v", sp.Status)
			}
		}
		if sp.Name == "turn/start" && sp.Kind != tracepb.Span_SPAN_KIND_CLIENT {
			t.Errorf("turn/start kind %v", sp.Kind)
		}
	}
	if !found {
		t.Error("no span for thread/read")
	}
}

// TestJSONLDecodes: one line per frame, each decoded by encoding/json, messages
// embedded as JSON, requests joined to responses.
func TestJSONLDecodes(t *testing.T) {
	recs := readAll(t, fixtures...)
	out := exportTo(t, export.JSONL, export.Options{}, recs...)
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	n, paired := 0, 0
	for sc.Scan() {
		var l export.Line
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		if l.Dir != "stderr" && len(l.Msg) == 0 {
			t.Errorf("line %d (%s #%d) has no msg", n+1, l.Recording, l.Seq)
		}
		if l.Pair != 0 {
			paired++
		}
		n++
	}
	if want := frameCount(recs, true); n != want {
		t.Errorf("%d lines, want %d", n, want)
	}
	if paired == 0 {
		t.Error("no request joined to its response")
	}
}

// TestExportMasksSecrets: a secret in a recording that was never sanitized reaches
// no export, unless Reveal.
func TestExportMasksSecrets(t *testing.T) {
	path, key := unsanitized(t)
	recs := readAll(t, path)
	for _, f := range export.Formats {
		out := exportTo(t, f, export.Options{}, recs...)
		if bytes.Contains(out, []byte(key)) || bytes.Contains(out, []byte(key[4:20])) {
			t.Errorf("%s export holds the secret", f)
		}
		if !bytes.Contains(out, []byte("redacted")) {
			t.Errorf("%s export shows no placeholder", f)
		}
		revealed := exportTo(t, f, export.Options{Reveal: true}, recs...)
		if !bytes.Contains(revealed, []byte(key)) {
			t.Errorf("%s export with Reveal lacks the recorded text", f)
		}
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range []string{"har", "otlp", "jsonl"} {
		if _, err := export.ParseFormat(f); err != nil {
			t.Error(err)
		}
	}
	if _, err := export.ParseFormat("csv"); err == nil || !strings.Contains(err.Error(), `"csv"`) {
		t.Errorf("csv: %v", err)
	}
}

// TestExportHostileReaders exports recordings built to make readers do too much work
// (hostile.Readers' shapes at sizes a race-detector run reads in seconds: nested 100k
// and 1M levels deep, a 5 MB line); each export is valid JSON.
func TestExportHostileReaders(t *testing.T) {
	for _, c := range []hostile.Case{
		{Name: "deep-100k", Rec: hostile.DeepRecording(100_000, "1")},
		{Name: "deep-1M", Rec: hostile.DeepArrayRecording(1_000_000)},
		{Name: "line-5MB", Rec: hostile.HugeLineRecording(5 << 20)},
	} {
		rec, err := recorder.ReadAll(bytes.NewReader(c.Rec), c.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range export.Formats {
			out := exportTo(t, f, export.Options{}, rec)
			if f == export.JSONL {
				if !json.Valid(bytes.TrimSpace(out)) {
					t.Errorf("%s %s: not JSON", c.Name, f)
				}
				continue
			}
			if !json.Valid(out) {
				t.Errorf("%s %s: not JSON", c.Name, f)
			}
		}
	}
}
