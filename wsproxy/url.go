// Package wsproxy relays WebSocket connections (ws:// and unix://) between clients and
// a codex app-server, message for message, and hands a copy of each message to a
// per-connection tap as a wire.Frame, classified and paired as the stdio proxy does.
// It does not record, validate or sanitize (taps do) and it never re-encodes a
// payload; it cannot relay a ping's payload or a client's fragmentation as they were
// (see Relay).
package wsproxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ErrURL wraps every malformed or unsupported socket URL.
var ErrURL = errors.New("bad socket URL")

// Addr is a parsed socket URL: ws://HOST:PORT[/PATH] or unix://PATH.
type Addr struct {
	Scheme string // "ws" or "unix"
	Host   string // HOST:PORT for ws
	Path   string // the socket's path for unix; the request path for ws ("" means "/")
}

// ParseURL parses a socket URL as codex app-server --listen spells it. A bare
// "unix://" is Codex's own control socket, $CODEX_HOME/app-server-control/app-server-control.sock
// (~/.codex when CODEX_HOME is unset).
func ParseURL(s string) (Addr, error) {
	switch {
	case strings.HasPrefix(s, "ws://"):
		rest := strings.TrimPrefix(s, "ws://")
		host, path, _ := strings.Cut(rest, "/")
		if _, _, err := net.SplitHostPort(host); err != nil {
			return Addr{}, fmt.Errorf("%w %q: want ws://HOST:PORT (%v)", ErrURL, s, err)
		}
		if path != "" {
			path = "/" + path
		}
		return Addr{Scheme: "ws", Host: host, Path: path}, nil
	case strings.HasPrefix(s, "unix://"):
		p := strings.TrimPrefix(s, "unix://")
		if p == "" {
			p = DefaultControlSocket()
		}
		return Addr{Scheme: "unix", Path: p}, nil
	}
	return Addr{}, fmt.Errorf("%w %q: want ws://HOST:PORT or unix://PATH", ErrURL, s)
}

// DefaultControlSocket is where codex app-server --listen unix:// listens.
func DefaultControlSocket() string {
	home := os.Getenv("CODEX_HOME")
	if home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			home = filepath.Join(h, ".codex")
		}
	}
	return filepath.Join(home, "app-server-control", "app-server-control.sock")
}

func (a Addr) String() string {
	if a.Scheme == "unix" {
		return "unix://" + a.Path
	}
	return "ws://" + a.Host + a.Path
}

// Listen opens a listener for a; the returned Addr has the port the system chose for
// ws://HOST:0. A unix socket is created 0600 (as Codex creates its own) and removed
// when the listener closes; an existing file at its path is refused, never replaced.
func Listen(a Addr) (net.Listener, Addr, error) {
	switch a.Scheme {
	case "ws":
		ln, err := net.Listen("tcp", a.Host)
		if err != nil {
			return nil, a, fmt.Errorf("listen %s: %w", a, err)
		}
		b := a
		b.Host = ln.Addr().String()
		return ln, b, nil
	case "unix":
		if _, err := os.Lstat(a.Path); err == nil {
			return nil, a, fmt.Errorf("listen %s: %s already exists", a, a.Path)
		}
		ln, err := net.Listen("unix", a.Path)
		if err != nil {
			return nil, a, fmt.Errorf("listen %s: %w", a, err)
		}
		if err := os.Chmod(a.Path, 0o600); err != nil {
			ln.Close()
			return nil, a, fmt.Errorf("listen %s: %w", a, err)
		}
		return ln, a, nil
	}
	return nil, a, fmt.Errorf("%w: scheme %q", ErrURL, a.Scheme)
}

// Probe reports whether something accepts connections at a.
func Probe(a Addr, timeout time.Duration) error {
	network, addr := "tcp", a.Host
	if a.Scheme == "unix" {
		network, addr = "unix", a.Path
	}
	c, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		return fmt.Errorf("no app-server at %s: %w", a, err)
	}
	return c.Close()
}

// HTTPClient is a client whose connections reach a: over TCP for ws://, over the
// socket for unix:// (the same HTTP/1.1 upgrade, on a unix dialer).
func HTTPClient(a Addr) *http.Client {
	tr := &http.Transport{DisableKeepAlives: true, DisableCompression: true}
	if a.Scheme == "unix" {
		var d net.Dialer
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			return d.DialContext(ctx, "unix", a.Path)
		}
	}
	return &http.Client{Transport: tr}
}

// DialURL is the ws:// URL to hand a WebSocket dialer using HTTPClient(a), for the
// request target path (which keeps its query).
func DialURL(a Addr, target string) string {
	if target == "" {
		target = a.Path
		if a.Scheme == "unix" || target == "" {
			target = "/"
		}
	}
	if a.Scheme == "unix" {
		return "ws://localhost" + target
	}
	return "ws://" + a.Host + target
}

// WriteURLFile writes url and a newline to path through a temporary file and a
// rename, so a script polling for it never reads half of it.
func WriteURLFile(path, url string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("url file: %w", err)
	}
	_, err = tmp.WriteString(url + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("url file: %w", err)
	}
	return nil
}

// Banner is what codex app-server prints on stderr when it listens on a ws:// URL
// (url as ws://HOST:PORT): a command standing in for codex prints it with the URL
// clients must use, for clients that read the port from codex's stderr.
func Banner(url string) string {
	host := strings.TrimPrefix(url, "ws://")
	return "codex app-server (WebSockets)\n" +
		"  listening on: " + url + "\n" +
		"  readyz: http://" + host + "/readyz\n" +
		"  healthz: http://" + host + "/healthz\n" +
		"  note: binds localhost only (use SSH port-forwarding for remote access)\n"
}
