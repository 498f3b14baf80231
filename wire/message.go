package wire

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Kind is what a line is, as JSON-RPC sees it.
type Kind uint8

const (
	KindRaw          Kind = iota // not a JSON object: blank, not JSON, invalid UTF-8, a batch array
	KindRequest                  // method and id
	KindNotification             // method, no id
	KindResponse                 // id and result
	KindError                    // id and error
	KindUnknown                  // a JSON object that is none of the above
)

var kindNames = [...]string{"raw", "request", "notification", "response", "error", "unknown"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// ParseKind is the inverse of Kind.String.
func ParseKind(s string) (Kind, error) {
	for i, n := range kindNames {
		if n == s {
			return Kind(i), nil
		}
	}
	return 0, fmt.Errorf("unknown message kind %q", s)
}

// IsJSON reports whether the frame is a JSON object (everything but KindRaw).
func (k Kind) IsJSON() bool { return k != KindRaw }

// ID is a JSON-RPC id as its JSON text: `1` and `"1"` are different ids, as they are
// on the wire. The zero value means the message has no id.
type ID string

// Reasons a line is raw or unknown.
const (
	ReasonBlank       = "blank"
	ReasonInvalidUTF8 = "invalid-utf8"
	ReasonNotJSON     = "not-json"
	ReasonBatch       = "batch"
	ReasonNotObject   = "not-object"
	ReasonNotJSONRPC  = "not-jsonrpc"
)

// Message is the classification of one line.
type Message struct {
	Kind Kind
	// Method is the request's or notification's method, or for a response the method
	// of the request it answers (filled in by Pairer.Observe; empty when unpaired).
	Method string
	ID     ID
	// Reason says why a line is KindRaw or KindUnknown.
	Reason string
	// Unpaired marks a response whose id was never requested in the opposite direction.
	Unpaired bool
}

// Classify inspects line (with or without its trailing newline) and never copies or
// re-encodes it beyond the method string.
func Classify(line []byte) Message {
	content := Content(line)
	first := firstNonSpace(content)
	if first < 0 {
		return Message{Kind: KindRaw, Reason: ReasonBlank}
	}
	if !utf8.Valid(content) {
		return Message{Kind: KindRaw, Reason: ReasonInvalidUTF8}
	}
	top, isObject, ok := scanMessage(content)
	if !ok {
		return Message{Kind: KindRaw, Reason: ReasonNotJSON}
	}
	if !isObject {
		if content[first] == '[' {
			return Message{Kind: KindRaw, Reason: ReasonBatch}
		}
		return Message{Kind: KindRaw, Reason: ReasonNotObject}
	}
	var m Message
	hasMethod := top.method.end > 0 && content[top.method.start] == '"'
	if hasMethod {
		raw := content[top.method.start:top.method.end]
		if bytes.IndexByte(raw, '\\') >= 0 {
			m.Method = gjson.ParseBytes(raw).Str
		} else {
			m.Method = string(raw[1 : len(raw)-1])
		}
	}
	hasID := top.id.end > 0
	if hasID {
		m.ID = ID(content[top.id.start:top.id.end])
	}
	hasResult, hasError := top.result.end > 0, top.errorV.end > 0
	switch {
	case hasMethod && hasID:
		m.Kind = KindRequest
	case hasMethod:
		m.Kind = KindNotification
	case hasID && hasError:
		m.Kind = KindError
	case hasID && hasResult:
		m.Kind = KindResponse
	default:
		m = Message{Kind: KindUnknown, Reason: ReasonNotJSONRPC, Method: m.Method, ID: m.ID}
	}
	return m
}

func firstNonSpace(b []byte) int {
	for i, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return i
	}
	return -1
}

// UserAgentVersion extracts the Codex version from an initialize response's userAgent
// ("client/0.171.0 (Debian 12.0.0; x86_64) ..."): the text after the first '/' up to
// the first space. It returns "" when there is none.
func UserAgentVersion(userAgent string) string {
	_, v, ok := strings.Cut(userAgent, "/")
	if !ok {
		return ""
	}
	v, _, _ = strings.Cut(v, " ")
	return v
}

// CodexVersion is the Codex version f reveals when it is the server's response to
// initialize (classified and paired, as the proxy and the recorder reader give
// frames), from its userAgent; "" for any other frame.
func CodexVersion(f *Frame) string {
	if f.Dir != ServerToClient || f.Msg.Kind != KindResponse || f.Msg.Method != "initialize" {
		return ""
	}
	return UserAgentVersion(gjson.GetBytes(Content(f.Line), "result.userAgent").Str)
}
