package wire

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// Reader splits a stream into lines without a length limit (other than memory).
// Unlike bufio.Scanner it never refuses a long line and never drops a final line
// that lacks its newline.
type Reader struct {
	br *bufio.Reader
}

// ReadBufferSize is NewReader's buffer size; longer lines are assembled across reads.
const ReadBufferSize = 64 << 10

// NewReader returns a Reader on r.
func NewReader(r io.Reader) *Reader { return NewReaderSize(r, ReadBufferSize) }

// NewReaderSize returns a Reader whose buffer holds size bytes. The proxy uses a large
// one so that a 200 KB output delta is read without reassembly.
func NewReaderSize(r io.Reader, size int) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, size)}
}

// ReadLine returns the next line, including its '\n' if it has one, in a newly
// allocated slice the caller owns. A final line without '\n' is returned with a nil
// error; the call after it returns io.EOF. Other read errors are returned together
// with whatever bytes preceded them, so nothing read is lost.
func (r *Reader) ReadLine() ([]byte, error) {
	frag, err := r.br.ReadSlice('\n')
	if err == nil {
		return bytes.Clone(frag), nil
	}
	var buf []byte
	for errors.Is(err, bufio.ErrBufferFull) {
		buf = appendFrag(buf, frag)
		frag, err = r.br.ReadSlice('\n')
	}
	buf = appendFrag(buf, frag)
	if isLarge(buf) {
		// A long line grew outside the heap (see growBuf): it costs one exact copy
		// in the heap, and the mapping is given back at once, instead of the 2-3x
		// that appending leaves behind.
		line := make([]byte, len(buf))
		copy(line, buf)
		releaseLarge(buf)
		buf = line
	}
	if err == io.EOF && len(buf) > 0 {
		return buf, nil
	}
	if err != nil && len(buf) == 0 {
		return nil, err
	}
	return buf, err
}

// Peek returns the next n bytes without consuming them (fewer, with the error, at
// the end of the stream); n is at most ReadBufferSize.
func (r *Reader) Peek(n int) ([]byte, error) { return r.br.Peek(n) }

// appendFrag appends frag to buf, growing it as growBuf does.
func appendFrag(buf, frag []byte) []byte {
	if cap(buf) == 0 {
		buf = make([]byte, 0, 2*len(frag))
	}
	for len(buf)+len(frag) > cap(buf) {
		n := len(buf)
		buf = growBuf(buf[:cap(buf)])[:n]
	}
	return append(buf, frag...)
}

// Content is line without its trailing newline.
func Content(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		return line[:n-1]
	}
	return line
}

// HasNewline reports whether line ends in '\n'.
func HasNewline(line []byte) bool {
	return len(line) > 0 && line[len(line)-1] == '\n'
}
