package replay

import "encoding/json"

// IdentityFields returns, as JSON pointers, what identifies a client rather than what
// it asks for. In params mode they never cause a mismatch, so a recording made with
// one client replays for another. Strict mode compares clientInfo and capabilities
// like any params; no mode compares jsonrpc, id or trace:
//
//   - /jsonrpc: present or absent ("2.0" is accepted and ignored by the app-server);
//   - /id: the value and JSON type of a request's id (the response carries the live one);
//   - /trace: the W3C trace context a request may carry;
//   - /params/clientInfo of initialize: name, title, version and any other member;
//   - /params/capabilities of initialize, where it holds only defaults: null, {},
//     "experimentalApi": false and an empty or null "optOutNotificationMethods" ask
//     for the same as no capabilities at all (anything else is compared).
//
// The top-level members are outside what params mode compares (the params); the
// initialize members are removed from both sides before comparing.
func IdentityFields() []string {
	return []string{"/jsonrpc", "/id", "/trace", "/params/clientInfo", "/params/capabilities (defaults only)"}
}

// withoutIdentity removes from a decoded body of method what identifies the client
// (IdentityFields); it reports whether it removed anything. v is modified in place.
func withoutIdentity(method string, v any) bool {
	if method != "initialize" {
		return false
	}
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	changed := false
	if _, ok := m["clientInfo"]; ok {
		delete(m, "clientInfo")
		changed = true
	}
	if c, ok := m["capabilities"]; ok && defaultCapabilities(c) {
		delete(m, "capabilities")
		changed = true
	}
	return changed
}

// defaultCapabilities reports whether an initialize capabilities value asks for
// nothing beyond what no capabilities ask for.
func defaultCapabilities(v any) bool {
	if v == nil {
		return true
	}
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for k, x := range m {
		switch k {
		case "experimentalApi":
			if x != nil && x != false {
				return false
			}
		case "optOutNotificationMethods":
			if a, ok := x.([]any); x != nil && (!ok || len(a) > 0) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// identityless returns body without the identity fields of method, re-encoded, or
// body itself when it holds none.
func identityless(method string, body []byte) []byte {
	if method != "initialize" || body == nil {
		return body
	}
	v, ok := decode(body)
	if !ok || !withoutIdentity(method, v) {
		return body
	}
	b, err := json.Marshal(v)
	if err != nil {
		return body
	}
	return b
}
