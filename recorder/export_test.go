package recorder

import (
	"errors"
	"io"
)

// FailWritesAfter makes w's file writes fail once n more bytes were written (the
// write that crosses the limit writes up to it), as a full disk does.
func FailWritesAfter(w *Writer, n int64, err error) {
	w.lb.w = &failingWriter{w: w.lb.w, left: n, err: err}
}

// Crash leaves w as a killed process would: the file unpublished, the lock gone.
func Crash(w *Writer) error {
	if err := w.lb.flush(); err != nil {
		return err
	}
	w.closed = true
	return w.f.Close()
}

type failingWriter struct {
	w    io.Writer
	left int64
	err  error
}

func (f *failingWriter) Write(p []byte) (int, error) {
	if int64(len(p)) <= f.left {
		f.left -= int64(len(p))
		return f.w.Write(p)
	}
	n, err := f.w.Write(p[:f.left])
	f.left -= int64(n)
	if err == nil {
		err = f.err
	}
	if err == nil {
		err = errors.New("injected write error")
	}
	return n, err
}
