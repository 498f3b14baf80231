package wsreplay

import (
	"bytes"
	"context"
	"errors"
	"io"
	"time"

	"github.com/coder/websocket"
)

// newLineReader turns the client's text messages into the line stream replay reads:
// one message, one line. A raw line break inside a message (pretty-printed JSON)
// becomes a space, which is what it is to JSON, so that the message is not split.
// Binary messages are dropped (the app-server ignores them). The stream ends when
// the connection does.
func newLineReader(ctx context.Context, c *websocket.Conn, gone chan<- struct{}) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		for {
			typ, data, err := c.Read(ctx)
			if err != nil {
				close(gone)
				pw.Close() // EOF: the client closed or dropped the connection
				return
			}
			if typ != websocket.MessageText {
				continue
			}
			for i, b := range data {
				if b == '\n' || b == '\r' {
					data[i] = ' '
				}
			}
			if _, err := pw.Write(append(data, '\n')); err != nil {
				return
			}
		}
	}()
	return pr
}

// messageWriter turns the replay's lines into text messages, one per line, without
// the newline (the app-server's frames carry none). Close drops the connection (a
// replayed crash).
type messageWriter struct {
	ctx     context.Context
	c       *websocket.Conn
	gone    <-chan struct{} // closed when the client's side has ended
	pending []byte
}

// errClientGone is a write that failed because the client had gone: the replay's
// last frames had nobody to go to, an ordinary end for a socket.
var errClientGone = errors.New("the client had gone")

func (w *messageWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.pending = append(w.pending, p...)
			break
		}
		msg := p[:i]
		if len(w.pending) > 0 {
			msg = append(w.pending, msg...)
		}
		if err := w.c.Write(w.ctx, websocket.MessageText, msg); err != nil {
			// A write fails because the connection is broken; the reading side
			// notices it too, a moment later or earlier.
			select {
			case <-w.gone:
				return 0, errClientGone
			case <-time.After(time.Second):
			}
			return 0, err
		}
		w.pending = w.pending[:0]
		p = p[i+1:]
	}
	return n, nil
}

func (w *messageWriter) Close() error { return w.c.CloseNow() }
