package wsproxy

import (
	"log"
	"net/http"
	"strings"
)

var discardLog = log.New(discard{}, "", 0)

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// Redacted is the value a credential header is recorded with.
const Redacted = "<redacted>"

// RedactHeader returns a copy of h fit to be written down: the values of
// credential headers (Authorization, Proxy-Authorization, Cookie, and any header
// whose name says token, secret, key, auth or session, the WebSocket handshake's
// key excepted) are replaced by Redacted, so a recording shows that auth was used,
// never how.
func RedactHeader(h http.Header) map[string][]string {
	out := make(map[string][]string, len(h))
	for k, vs := range h {
		if secretHeader(k) {
			r := make([]string, len(vs))
			for i := range r {
				r[i] = Redacted
			}
			out[k] = r
			continue
		}
		out[k] = append([]string(nil), vs...)
	}
	return out
}

func secretHeader(name string) bool {
	n := strings.ToLower(name)
	if n == "sec-websocket-key" {
		return false
	}
	for _, w := range []string{"authorization", "cookie", "token", "secret", "key", "auth", "session", "password"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

func isUpgrade(req *http.Request) bool {
	return headerHas(req.Header, "Connection", "upgrade") && headerHas(req.Header, "Upgrade", "websocket")
}

func headerHas(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// hopHeader reports headers that belong to one hop's handshake, never relayed.
func hopHeader(k string) bool {
	switch http.CanonicalHeaderKey(k) {
	case "Connection", "Upgrade", "Sec-Websocket-Key", "Sec-Websocket-Accept", "Sec-Websocket-Version",
		"Sec-Websocket-Extensions", "Sec-Websocket-Protocol", "Keep-Alive", "Transfer-Encoding", "Te", "Trailer",
		"Proxy-Connection", "Host", "Date":
		return true
	}
	return false
}

// upgradeHeader is the client's upgrade request header as the upstream gets it:
// everything but the hop's own handshake (the dialer makes its own).
func upgradeHeader(h http.Header) http.Header {
	out := make(http.Header, len(h))
	for k, vs := range h {
		if !hopHeader(k) {
			out[k] = append([]string(nil), vs...)
		}
	}
	return out
}

func protocols(h http.Header) []string {
	var out []string
	for _, v := range h.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}
