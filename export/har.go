package export

import (
	"encoding/base64"
	"io"
	"net/url"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// The HAR 1.2 document (http://www.softwareishard.com/blog/har-12-spec/), with the
// members Chrome DevTools adds for WebSockets (_resourceType, _webSocketMessages).
type harLog struct {
	Log harBody `json:"log"`
}

type harBody struct {
	Version string     `json:"version"`
	Creator harCreator `json:"creator"`
	Pages   []any      `json:"pages"`
	Entries []harEntry `json:"entries"`
}

type harCreator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type harEntry struct {
	StartedDateTime string         `json:"startedDateTime"`
	Time            float64        `json:"time"` // milliseconds
	Request         harRequest     `json:"request"`
	Response        harResponse    `json:"response"`
	Cache           struct{}       `json:"cache"`
	Timings         harTimings     `json:"timings"`
	Comment         string         `json:"comment,omitempty"`
	ResourceType    string         `json:"_resourceType"`
	Messages        []harWSMessage `json:"_webSocketMessages"`
	Codexrec        harCodexrec    `json:"_codexrec"`
}

type harRequest struct {
	Method      string      `json:"method"`
	URL         string      `json:"url"`
	HTTPVersion string      `json:"httpVersion"`
	Cookies     []any       `json:"cookies"`
	Headers     []harHeader `json:"headers"`
	QueryString []any       `json:"queryString"`
	HeadersSize int         `json:"headersSize"`
	BodySize    int         `json:"bodySize"`
}

type harResponse struct {
	Status      int         `json:"status"`
	StatusText  string      `json:"statusText"`
	HTTPVersion string      `json:"httpVersion"`
	Cookies     []any       `json:"cookies"`
	Headers     []harHeader `json:"headers"`
	Content     harContent  `json:"content"`
	RedirectURL string      `json:"redirectURL"`
	HeadersSize int         `json:"headersSize"`
	BodySize    int         `json:"bodySize"`
}

type harHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type harContent struct {
	Size     int    `json:"size"`
	MimeType string `json:"mimeType"`
}

type harTimings struct {
	Blocked float64 `json:"blocked"`
	DNS     float64 `json:"dns"`
	Connect float64 `json:"connect"`
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
	SSL     float64 `json:"ssl"`
}

// harWSMessage is Chrome DevTools' WebSocket message: type send (client to server)
// or receive, time in seconds since the Unix epoch, opcode 1 (text) or 2 (binary).
type harWSMessage struct {
	Type   string  `json:"type"`
	Time   float64 `json:"time"`
	Opcode int     `json:"opcode"`
	Data   string  `json:"data"`
}

// harCodexrec is what HAR has no member for: which recording, how it ended, the
// server's stderr and the findings and redactions.
type harCodexrec struct {
	Recording    string       `json:"recording"`
	Transport    string       `json:"transport"` // stdio, ws, unix
	CodexVersion string       `json:"codexVersion,omitempty"`
	Ended        string       `json:"ended,omitempty"`
	Stderr       []string     `json:"stderr,omitempty"`
	Notes        []harSeqNote `json:"notes,omitempty"`
	Command      []string     `json:"command,omitempty"`
}

type harSeqNote struct {
	Seq     int64  `json:"seq"`
	Type    string `json:"type"`
	Rule    string `json:"rule,omitempty"`
	Pointer string `json:"pointer,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

// WriteHAR writes recs as one HAR 1.2 log: each recording (one connection) an entry
// whose messages are _webSocketMessages. A WebSocket recording's entry is its upgrade
// request (headers as recorded, credentials already replaced); a stdio session gets a
// synthetic one, url stdio:COMMAND, so the same viewers show it.
func WriteHAR(w io.Writer, recs []*recorder.Recording, opts Options) error {
	doc := harLog{Log: harBody{Version: "1.2", Creator: harCreator{Name: "codexrec", Version: opts.Creator},
		Pages: []any{}, Entries: []harEntry{}}}
	for _, rec := range recs {
		s, err := prepare(rec, opts)
		if err != nil {
			return err
		}
		doc.Log.Entries = append(doc.Log.Entries, s.harEntry())
	}
	return writeJSON(w, doc, true)
}

func (s *session) harEntry() harEntry {
	h := s.rec.Header
	dur := float64(s.end.Microseconds()) / 1000
	e := harEntry{
		StartedDateTime: s.at(0).Format(timeFormat),
		Time:            dur,
		Request: harRequest{Method: "GET", HTTPVersion: "HTTP/1.1", Cookies: []any{}, Headers: []harHeader{},
			QueryString: []any{}, HeadersSize: -1, BodySize: 0},
		Response: harResponse{Status: 101, StatusText: "Switching Protocols", HTTPVersion: "HTTP/1.1",
			Cookies: []any{}, Headers: []harHeader{}, Content: harContent{Size: 0, MimeType: "x-unknown"},
			HeadersSize: -1, BodySize: 0},
		Timings:      harTimings{Blocked: -1, DNS: -1, Connect: -1, Send: 0, Wait: dur, Receive: 0, SSL: -1},
		ResourceType: "websocket",
		Messages:     []harWSMessage{},
		Codexrec: harCodexrec{Recording: s.name, Transport: "stdio", CodexVersion: h.CodexVersion,
			Command: s.command},
	}
	if sock := h.Socket; sock != nil {
		e.Codexrec.Transport = sock.Transport
		host := "localhost"
		names := make([]string, 0, len(sock.Headers))
		for k := range sock.Headers {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			for _, v := range sock.Headers[k] {
				v = s.mask.Text(v)
				e.Request.Headers = append(e.Request.Headers, harHeader{Name: k, Value: v})
				if strings.EqualFold(k, "Host") && v != "" {
					host = v
				}
			}
		}
		u := url.URL{Scheme: "ws", Host: host, Path: sock.Path}
		if u.Path == "" {
			u.Path = "/"
		}
		e.Request.URL = u.String()
		e.Comment = "WebSocket connection " + itoa(sock.Connection) + " of session " + s.mask.Text(sock.Session)
	} else {
		// No HTTP request carried a stdio session: the entry is synthetic.
		e.Request.URL = (&url.URL{Scheme: "stdio", Opaque: url.PathEscape(strings.Join(s.command, " "))}).String()
		e.Comment = "stdio session (JSON-RPC lines over the server's stdin and stdout): a synthetic entry"
	}
	if tr := s.rec.Trailer; tr != nil {
		e.Codexrec.Ended = string(tr.Ended)
	}
	for _, m := range s.msgs {
		r := m.row
		for _, n := range m.notes {
			e.Codexrec.Notes = append(e.Codexrec.Notes, harSeqNote{Seq: r.Seq, Type: string(n.Type), Rule: n.Rule,
				Pointer: n.Pointer, Reason: n.Reason, Detail: n.Detail})
		}
		if r.Dir == wire.Stderr {
			e.Codexrec.Stderr = append(e.Codexrec.Stderr, string(m.content))
			continue
		}
		msg := harWSMessage{Type: "send", Opcode: 1, Data: string(m.content)}
		if r.Dir == wire.ServerToClient {
			msg.Type = "receive"
		}
		if r.Kind == wire.KindRaw && r.Line != nil && !utf8.Valid(m.content) {
			msg.Opcode, msg.Data = 2, base64.StdEncoding.EncodeToString(m.content)
		}
		msg.Time = float64(s.at(r.Time).UnixMicro()) / 1e6
		e.Messages = append(e.Messages, msg)
	}
	return e
}
