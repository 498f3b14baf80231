package wire

import (
	"bytes"
	"io"
)

// Framer reads a stream for a proxy that forwards bytes the moment they arrive and
// taps whole lines: each read comes back as it is, to be forwarded at once, together
// with the lines it completed. A line that takes several reads (a 200 KB output delta
// through a 64 KB pipe, a 100 MB line) is never held back from the far side; its
// bytes are collected on the side for the tap, in the heap while short, then in a
// temporary file (on Linux, past SpoolMin), so that a huge line in flight costs the
// tap one mapped copy while it is tapped, not one per direction and stage.
type Framer struct {
	r     io.Reader
	carry []byte // the start of a line earlier reads delivered (not spooled)
	spool *spool // the start of a long line, past SpoolMin
	err   error  // the error that ended the stream, returned once the last line is out

	// Alloc, when set, returns memory to collect a carried line of n bytes so far in
	// (it is grown as the line does), or nil to have it allocated. A proxy that gets
	// carried lines back once tapped hands them out again here, instead of
	// allocating one per line a read cut short.
	Alloc func(n int) []byte
}

// CarryMin is a carried line's first allocation: most lines a read cuts short are
// output deltas of up to a few tens of KB, done within it.
const CarryMin = 64 << 10

// alloc returns memory to start a carried line of at least n bytes in.
func (f *Framer) alloc(n int) []byte {
	if f.Alloc != nil {
		if b := f.Alloc(n); b != nil {
			return b[:0]
		}
	}
	return make([]byte, 0, max(CarryMin, 2*n))
}

// SpoolMin is how long the unfinished part of a line may grow in memory before the
// Framer moves it to a temporary file (where the platform allows).
const SpoolMin = 8 << 20

// NewFramer returns a Framer reading r.
func NewFramer(r io.Reader) *Framer { return &Framer{r: r} }

// Next reads once into buf (from its start up to its capacity) and returns:
//   - data, what that read brought (buf's start), to forward as it is;
//   - carried, the line that began in an earlier read and ended in this one, in
//     memory of its own that the caller now owns and gives back with Release (it may
//     be mapped);
//   - whole, the complete lines that began in this read: a slice of data.
//
// Bytes after data's last newline are kept for the next call. err is the stream's
// error (io.EOF at the end). When the stream ends inside a line, that unfinished
// last line comes back as carried together with the error, after the whole lines
// before it (possibly on the next call, with no data). Nothing read is lost.
func (f *Framer) Next(buf []byte) (data, carried, whole []byte, err error) {
	if f.err != nil {
		if f.pending() {
			return nil, f.take(), nil, f.err
		}
		return nil, nil, nil, f.err
	}
	n, err := f.r.Read(buf[:cap(buf)])
	data = buf[:n]
	f.err = err
	i := bytes.IndexByte(data, '\n')
	if i < 0 {
		f.keep(data)
		if err != nil && f.pending() {
			carried = f.take()
		}
		return data, carried, nil, err
	}
	rest := data
	if f.pending() {
		f.keep(data[:i+1])
		carried, rest = f.take(), data[i+1:]
	}
	j := lastNewline(rest)
	whole = rest[:j+1]
	f.keep(rest[j+1:])
	if err != nil && f.pending() {
		return data, carried, whole, nil // the last line comes with the error, next call
	}
	return data, carried, whole, err
}

func (f *Framer) pending() bool { return len(f.carry) > 0 || f.spool != nil }

// keep collects b, the unfinished part of a line, moving it to a spool file once it
// outgrows SpoolMin. A spool that cannot be written falls back to memory: nothing
// read is dropped.
func (f *Framer) keep(b []byte) {
	if len(b) == 0 {
		return
	}
	if f.spool == nil && len(f.carry)+len(b) > SpoolMin {
		f.spool = newSpool(f.carry)
		if f.spool != nil {
			Release(f.carry)
			f.carry = nil
		}
	}
	if f.spool != nil {
		n := f.spool.write(b)
		if n == len(b) {
			return
		}
		f.carry, f.spool, b = f.spool.unspool(), nil, b[n:]
	}
	if f.carry == nil {
		f.carry = f.alloc(len(b))
	}
	for n := len(f.carry); n+len(b) > cap(f.carry); {
		f.carry = growBuf(f.carry[:cap(f.carry)])[:n] // full, so it grows
	}
	f.carry = append(f.carry, b...)
}

// take hands the collected line over to the caller.
func (f *Framer) take() []byte {
	if f.spool != nil {
		line := f.spool.finish()
		f.spool = nil
		return line
	}
	line := f.carry
	f.carry = nil
	return line
}
