package wsreplay

import (
	"bufio"
	"net"
	"net/http"
	"sync/atomic"
)

// progressWriter is the http.ResponseWriter a connection is accepted through: its
// hijacked connection counts the bytes written to the client, so that a client
// that stops reading in the middle of one long message (which no queue bound sees)
// can be told from one that reads slowly.
type progressWriter struct {
	http.ResponseWriter
	conn *countingConn
}

func (w *progressWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *progressWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	if err := brw.Writer.Flush(); err != nil {
		c.Close()
		return nil, nil, err
	}
	w.conn = &countingConn{Conn: c}
	return w.conn, bufio.NewReadWriter(brw.Reader, bufio.NewWriterSize(w.conn, brw.Writer.Size())), nil
}

// sent is the bytes written to the client so far (0 before the hijack).
func (w *progressWriter) sent() int64 {
	if w.conn == nil {
		return 0
	}
	return w.conn.n.Load()
}

type countingConn struct {
	net.Conn
	n atomic.Int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.n.Add(int64(n))
	return n, err
}
