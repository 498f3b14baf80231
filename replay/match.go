package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/wire"
)

// Mode says how an incoming client message is matched to an expected one. The zero
// value is ModeParams, the default.
type Mode uint8

const (
	// ModeParams matches kind and method, then the params (result or error for
	// answers to server requests) after normalising what varies from run to run:
	// ids, timestamps, paths and sanitizer placeholders (internal/normalize); what
	// identifies the client rather than what it asks for is left out (IdentityFields).
	ModeParams Mode = iota
	// ModeStrict matches kind and method, then params equal as JSON (member order
	// and whitespace aside).
	ModeStrict
	// ModeMethod matches kind and method only (and the id, for answers).
	ModeMethod
)

var modeNames = [...]string{"params", "strict", "method"}

func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// ParseMode is the inverse of Mode.String.
func ParseMode(s string) (Mode, error) {
	for i, n := range modeNames {
		if n == s {
			return Mode(i), nil
		}
	}
	return 0, fmt.Errorf("unknown match mode %q (want strict, params or method)", s)
}

// Matcher is the MatcherFunc of the mode.
func (m Mode) Matcher() MatcherFunc {
	switch m {
	case ModeStrict:
		return MatchStrict
	case ModeMethod:
		return MatchMethod
	}
	return MatchParams
}

// Message is one client message as a matcher sees it: the live one or an expected
// one.
type Message struct {
	Msg  wire.Message // classification; Method is set for answers to server requests
	Line []byte       // the exact bytes, with or without the newline
}

// Body is the part of a message that its mode compares: params for requests and
// notifications, result for responses, error for errors; nil when absent or null.
func (m Message) Body() []byte {
	var path string
	switch m.Msg.Kind {
	case wire.KindRequest, wire.KindNotification:
		path = "params"
	case wire.KindResponse:
		path = "result"
	case wire.KindError:
		path = "error"
	default:
		return nil
	}
	r := gjson.GetBytes(wire.Content(m.Line), path)
	if !r.Exists() || r.Type == gjson.Null {
		return nil
	}
	return []byte(r.Raw)
}

// A MatcherFunc reports whether got, a message the live client sent, is the expected
// message want. Matchers compose: write one that calls MatchMethod and then compares
// what matters to the test.
type MatcherFunc func(got, want Message) bool

// MatchMethod matches kind and method; answers to server requests must carry the id
// of the request they answer (the replay sends server requests with their recorded
// ids); lines that are not JSON-RPC must be the same bytes.
func MatchMethod(got, want Message) bool {
	if got.Msg.Kind != want.Msg.Kind {
		return false
	}
	switch got.Msg.Kind {
	case wire.KindRequest, wire.KindNotification:
		return got.Msg.Method == want.Msg.Method
	case wire.KindResponse, wire.KindError:
		return got.Msg.ID == want.Msg.ID
	}
	return bytes.Equal(wire.Content(got.Line), wire.Content(want.Line))
}

// MatchStrict is MatchMethod and bodies equal as JSON.
func MatchStrict(got, want Message) bool {
	return MatchMethod(got, want) && jsonEqual(got.Body(), want.Body())
}

// MatchParams is MatchMethod and bodies equal after normalisation, leaving out what
// identifies the client (IdentityFields).
func MatchParams(got, want Message) bool {
	if !MatchMethod(got, want) {
		return false
	}
	g, w := got.Body(), want.Body()
	if jsonEqual(g, w) {
		return true
	}
	m := want.Msg.Method
	return normalizedEqual(identityless(m, w), identityless(m, g))
}

// jsonEqual compares two JSON texts as values; nil is null.
func jsonEqual(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if a == nil || b == nil {
		return false
	}
	va, ok1 := decode(a)
	vb, ok2 := decode(b)
	return ok1 && ok2 && reflect.DeepEqual(va, vb)
}

func decode(b []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}
