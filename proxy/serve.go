package proxy

import (
	"io"
	"time"

	"github.com/codexrec/codexrec/wire"
)

// Server is a JSON-RPC server reached through streams rather than a child process:
// an in-process server in a test, or any stream transport. The proxy writes the
// client's lines to In and closes it at the client's EOF; the session ends when Out
// does.
type Server struct {
	In  io.WriteCloser
	Out io.Reader
}

// Serve forwards between a client and srv, as Run does for a child process, until
// srv.Out reaches EOF and every frame is tapped. There is no exit status and no
// stderr; Signals are ignored. A client still being read when the server ends is
// left to its caller (the client pump stops forwarding and drops what it reads).
func (p *Proxy) Serve(srv Server, client io.Reader, clientOut io.Writer) Result {
	if p.Start.IsZero() {
		p.Start = time.Now()
	}
	var res Result
	s := newSession(p, &res)
	clientEOF := make(chan struct{})
	go s.pumpClient(client, srv.In, clientEOF)
	res.ClientErr = s.pumpOut(srv.Out, wire.ServerToClient, clientOut)
	select {
	case <-clientEOF:
		res.ClientEOF = true
	default:
	}
	s.stop()
	return res
}
