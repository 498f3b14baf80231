package wire

import (
	"bytes"
	"io"
)

// Lines reads a stream in runs of complete lines, into buffers the caller supplies
// and may reuse. Lines that arrived together come back together, and their bytes are
// read straight into the caller's buffer and never copied again; only a line a read
// cut short is carried over into the next buffer. The proxy forwards and taps those
// runs as they are.
type Lines struct {
	r     io.Reader
	carry []byte // the start of a line the last read cut short
	err   error  // the error that ended the stream, returned once carry is out
}

// NewLines returns a Lines reading r.
func NewLines(r io.Reader) *Lines { return &Lines{r: r} }

// Next reads into buf (from its start, up to its capacity) and returns the complete
// lines that arrived: at least one line, ending in '\n', unless the stream ended with
// a line that lacks it, which then comes alone with a nil error; the call after it
// returns the stream's error (io.EOF at the end). A line longer than buf's capacity
// grows the buffer (the result's backing array is then not buf's; past a few MB it is
// mapped memory, which the caller gives back with Release). Bytes read before an
// error are returned first; nothing read is lost.
func (l *Lines) Next(buf []byte) ([]byte, error) {
	buf = append(buf[:0], l.carry...)
	l.carry = l.carry[:0]
	if len(buf) == 0 && cap(buf) == 0 {
		buf = make([]byte, 0, ReadBufferSize)
	}
	for l.err == nil {
		if len(buf) == cap(buf) {
			buf = growBuf(buf) // a long line: room to read on
		}
		start := len(buf)
		n, err := l.r.Read(buf[start:cap(buf)])
		buf, l.err = buf[:start+n], err
		if i := lastNewline(buf[start:]); i >= 0 {
			end := start + i + 1
			l.carry = append(l.carry, buf[end:]...)
			return buf[:end], nil
		}
	}
	if len(buf) > 0 {
		return buf, nil // the final line, without '\n'
	}
	return nil, l.err
}

// lastNewline is bytes.LastIndexByte(b, '\n'), which walks back a byte at a time: a read
// that ended inside a 200 KB line would have the line walked whole. Past a short walk
// back, it jumps forward from newline to newline with IndexByte instead (vectorized).
func lastNewline(b []byte) int {
	const walk = 256
	for i := len(b) - 1; i >= 0 && i >= len(b)-walk; i-- {
		if b[i] == '\n' {
			return i
		}
	}
	last := -1
	for i, end := 0, max(len(b)-walk, 0); i < end; {
		j := bytes.IndexByte(b[i:end], '\n')
		if j < 0 {
			break
		}
		last = i + j
		i = last + 1
	}
	return last
}
