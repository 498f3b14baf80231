package wsproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Relay is an http.Handler that relays each WebSocket client to Upstream: the
// upgrade request goes upstream first (with the client's headers, Authorization and
// Origin included), so a refusal (401 for a bad token, 403 for an Origin) reaches
// the client as the server sent it; only an accepted upgrade is accepted here.
// Other requests (/readyz, /healthz) are forwarded as plain HTTP; in front of a
// unix socket server, a ws:// relay answers them and refuses an Origin itself, as a
// ws:// server would. Every connection
// has its own goroutines and tap queue: a slow or stuck connection never stalls
// another, except through the memory budget all share (MemoryBudget), which a
// client that does not read holds only until its queue bound drops it.
//
// What cannot be relayed as it was, because github.com/coder/websocket does not
// expose it: a client's fragmented message reaches the server as one frame (payload
// bytes unchanged), and a ping is relayed as a ping of the next hop whose pong the
// client gets with its own payload, once the server has answered (the server's two
// pongs to one ping become one).
type Relay struct {
	// Upstream is the server to relay to. Required.
	Upstream Addr

	// Open, when set, is called for each accepted connection before any message
	// crosses; the Tap it returns sees every message. An error refuses the
	// connection (500) before the client's upgrade is accepted.
	Open func(*Conn) (Tap, error)

	// ReadLimit bounds one message read from either side; zero means
	// DefaultReadLimit. It is above the server's own limit (16 MiB per frame) so that
	// an oversized frame reaches the server and is refused by it, as it would be
	// without the relay.
	ReadLimit int64

	// QueueSize bounds the messages of one connection waiting for its tap; when
	// full, that connection's reading pauses: back-pressure, nothing dropped. Zero
	// means DefaultQueueSize.
	QueueSize int

	// MemoryBudget bounds the bytes of messages held in memory across every
	// connection (read, not yet tapped and written): a read waits for room instead
	// of allocating past it (see Budget). Zero means DefaultMemoryBudget (512 MiB).
	MemoryBudget int64

	// ClientQueue bounds the messages read from the server and not yet written to
	// a client, as the app-server bounds its own outbound queue per connection: a
	// client that does not read is disconnected when its queue is full (End.Err
	// wraps ErrSlowClient), and other connections go on. The queue's bytes are
	// bounded too, by a quarter of the memory budget (one message always fits).
	// Zero means DefaultClientQueue.
	ClientQueue int

	// PingTimeout bounds how long a relayed ping waits for the next hop's pong
	// before the ping goes unanswered. Zero means 30s.
	PingTimeout time.Duration

	// ShutdownGrace is how quiet a connection must be after Serve's context ends
	// before it is dropped: it goes on being relayed and tapped until it has read
	// nothing for ShutdownGrace (and holds no message begun), so that what is
	// readable from both sides (a client's last request as it hangs up, the answer
	// to it) is drained and recorded, and a connection that ends meanwhile ends as
	// it would have. Zero means DefaultShutdownGrace; negative, none.
	ShutdownGrace time.Duration

	// DrainLimit bounds the drain of one connection at shutdown (a client that
	// never stops sending). Zero means DefaultDrainLimit.
	DrainLimit time.Duration

	mu      sync.Mutex
	mem     *Budget
	ctx     context.Context
	cancel  context.CancelFunc
	conns   sync.WaitGroup
	n       int
	network string
}

// DefaultReadLimit is Relay.ReadLimit's default: 64 MiB.
const DefaultReadLimit = 64 << 20

// DefaultShutdownGrace is Relay.ShutdownGrace's default.
const DefaultShutdownGrace = 250 * time.Millisecond

// DefaultQueueSize is Relay.QueueSize's default.
const DefaultQueueSize = 4096

// DefaultClientQueue is Relay.ClientQueue's default: 1024 messages (8 x 128).
const DefaultClientQueue = 1024

// DefaultDrainLimit is Relay.DrainLimit's default.
const DefaultDrainLimit = 5 * time.Second

// Conn describes one client connection, for Relay.Open.
type Conn struct {
	N         int         // 1-based, in the order upgrades were accepted
	Transport string      // "ws" or "unix": how the client reached the relay
	Target    string      // the upgrade request's target, e.g. "/" or "/rpc?x=1"
	Header    http.Header // the upgrade request's headers as received (RedactHeader before keeping them)
	Remote    string      // the client's address ("@" for a unix socket peer)
	Start     time.Time   // when the connection was accepted; frame times count from here
}

// Serve accepts connections on ln until ctx is done, then closes ln, lets every
// connection drain what is readable (until it has been quiet for ShutdownGrace, at
// most DrainLimit), drops those still open (their tap's End says
// SideShutdown) and returns once every tap has ended. The error is nil after ctx is done, or the listener's failure.
func (r *Relay) Serve(ctx context.Context, ln net.Listener) error {
	r.mu.Lock()
	r.ctx, r.cancel = context.WithCancel(ctx)
	r.network = "ws"
	if ln.Addr().Network() == "unix" {
		r.network = "unix"
	}
	r.mu.Unlock()
	// Hijacked connections are the relay's: they end through r.ctx.
	return ServeHandler(ctx, ln, r, func() { r.cancel(); r.conns.Wait() })
}

// ServeHandler serves h on ln until ctx is done or the listener fails, then closes
// the server (the listener and connections not hijacked) and calls drain, which
// returns once h's hijacked connections have ended. The error is nil after ctx is
// done, else the listener's. The server's own log is discarded: it would quote what
// clients sent.
func ServeHandler(ctx context.Context, ln net.Listener, h http.Handler, drain func()) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second, ErrorLog: discardLog}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	srv.Close()
	drain()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

func (r *Relay) base() context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ctx == nil { // used as a plain http.Handler
		r.ctx, r.cancel = context.WithCancel(context.Background())
		r.network = "ws"
	}
	return r.ctx
}

// ServeHTTP relays one request: a WebSocket upgrade for the connection's lifetime,
// anything else as a plain HTTP exchange with the upstream.
func (r *Relay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	base := r.base()
	r.mu.Lock()
	network := r.network
	r.mu.Unlock()
	// Clients on ws:// in front of a unix socket server expect what a ws:// server
	// does, which the unix socket server does not: refuse an Origin, answer health
	// checks. In front of a ws:// server, that server decides.
	emulate := network == "ws" && r.Upstream.Scheme == "unix"
	if _, ok := req.Header["Origin"]; ok && emulate {
		w.WriteHeader(http.StatusForbidden)
		return
	}
	if !isUpgrade(req) {
		switch {
		case !emulate:
			r.forward(w, req)
		case req.URL.Path == "/readyz" || req.URL.Path == "/healthz":
			w.WriteHeader(http.StatusOK)
		default:
			http.Error(w, "Connection header did not include 'upgrade'", http.StatusBadRequest)
		}
		return
	}
	// A handshake this side would refuse is refused before the upstream is dialled,
	// so that no connection is opened (and recorded) for it.
	if req.Method != http.MethodGet || req.Header.Get("Sec-WebSocket-Version") != "13" || req.Header.Get("Sec-WebSocket-Key") == "" {
		w.Header().Set("Sec-WebSocket-Version", "13")
		http.Error(w, "proxy: not a WebSocket version 13 handshake", http.StatusBadRequest)
		return
	}
	r.conns.Add(1)
	defer r.conns.Done()
	c := &conn{relay: r}
	dctx, cancel := context.WithTimeout(base, 30*time.Second)
	up, resp, err := websocket.Dial(dctx, DialURL(r.Upstream, req.URL.RequestURI()), &websocket.DialOptions{
		HTTPClient:      HTTPClient(r.Upstream),
		HTTPHeader:      upgradeHeader(req.Header),
		Subprotocols:    protocols(req.Header),
		CompressionMode: websocket.CompressionDisabled,
		OnPingReceived:  func(ctx context.Context, _ []byte) bool { return c.relayPing(ctx, c.client) },
	})
	cancel()
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			copyRefusal(w, resp)
			return
		}
		http.Error(w, fmt.Sprintf("proxy: cannot reach the app-server at %s: %v", r.Upstream, err), http.StatusBadGateway)
		return
	}
	c.up = up
	for k, vs := range resp.Header {
		if !hopHeader(k) {
			w.Header()[k] = vs
		}
	}
	r.mu.Lock()
	r.n++
	info := &Conn{N: r.n, Transport: r.network, Target: req.URL.RequestURI(), Header: req.Header.Clone(),
		Remote: req.RemoteAddr, Start: time.Now()}
	r.mu.Unlock()
	var tap Tap
	if r.Open != nil {
		if tap, err = r.Open(info); err != nil {
			up.CloseNow()
			http.Error(w, "proxy: "+err.Error(), http.StatusInternalServerError)
			return
		}
	}
	var chosen []string
	if p := resp.Header.Get("Sec-WebSocket-Protocol"); p != "" {
		chosen = []string{p}
	}
	client, err := websocket.Accept(w, req, &websocket.AcceptOptions{
		InsecureSkipVerify: true, // the upstream has judged the Origin already
		Subprotocols:       chosen,
		CompressionMode:    websocket.CompressionDisabled,
		OnPingReceived:     func(ctx context.Context, _ []byte) bool { return c.relayPing(ctx, c.up) },
	})
	if err != nil {
		up.CloseNow()
		if tap != nil {
			tap.End(End{By: SideClient, Err: fmt.Errorf("accepting the client's upgrade: %w", err)})
		}
		return
	}
	c.client = client
	c.run(base, info, tap)
}

// forward passes a plain HTTP request (a health check) to the upstream.
func (r *Relay) forward(w http.ResponseWriter, req *http.Request) {
	target := &url.URL{Scheme: "http", Host: r.Upstream.Host}
	if r.Upstream.Scheme == "unix" {
		target.Host = "localhost"
	}
	p := &httputil.ReverseProxy{
		Rewrite:   func(pr *httputil.ProxyRequest) { pr.SetURL(target); pr.Out.Host = pr.In.Host },
		Transport: HTTPClient(r.Upstream).Transport,
		ErrorLog:  discardLog,
	}
	p.ServeHTTP(w, req)
}

func (r *Relay) readLimit() int64 {
	if r.ReadLimit > 0 {
		return r.ReadLimit
	}
	return DefaultReadLimit
}

// Budget is the relay's memory budget, shared by all its connections (for
// figures: Peak, Waits).
func (r *Relay) Budget() *Budget { return r.budget() }

func (r *Relay) budget() *Budget {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mem == nil {
		r.mem = NewBudget(r.MemoryBudget)
	}
	return r.mem
}

func (r *Relay) clientQueue() int {
	if r.ClientQueue > 0 {
		return r.ClientQueue
	}
	return DefaultClientQueue
}

func (r *Relay) drainLimit() time.Duration {
	if r.DrainLimit > 0 {
		return r.DrainLimit
	}
	return DefaultDrainLimit
}

func (r *Relay) queueSize() int {
	if r.QueueSize > 0 {
		return r.QueueSize
	}
	return DefaultQueueSize
}

func (r *Relay) shutdownGrace() time.Duration {
	switch {
	case r.ShutdownGrace > 0:
		return r.ShutdownGrace
	case r.ShutdownGrace < 0:
		return 0
	}
	return DefaultShutdownGrace
}

func (r *Relay) pingTimeout() time.Duration {
	if r.PingTimeout > 0 {
		return r.PingTimeout
	}
	return 30 * time.Second
}

// copyRefusal sends the client the upstream's refusal of the upgrade as it came
// (status, headers, the first KiB of the body).
func copyRefusal(w http.ResponseWriter, resp *http.Response) {
	for k, vs := range resp.Header {
		if !hopHeader(k) && http.CanonicalHeaderKey(k) != "Content-Length" {
			w.Header()[k] = vs
		}
	}
	w.WriteHeader(resp.StatusCode)
	if resp.Body != nil {
		io.Copy(w, io.LimitReader(resp.Body, 1024))
		resp.Body.Close()
	}
}
