package recorder

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// counts are what a trailer counts.
type counts struct {
	frames      [4]int64 // by wire.Direction
	findings    int64
	segments    int
	undelivered int64
}

// mark is one entry sitting in the buffer: where it ends and what it counts as.
type mark struct {
	end         int
	dir         int8 // a frame's direction, 0 for other entries
	finding     bool
	segment     bool
	undelivered bool
}

// lineBuf buffers whole entries on their way to the file and knows, after any write
// error, which of them reached the file entirely: the file can then be cut back to
// the last complete line and closed with a trailer that counts exactly those.
type lineBuf struct {
	w     io.Writer
	buf   []byte
	marks []mark
	// done counts the entries entirely written; doneOff is where the last one ends.
	done    counts
	doneOff int64
	off     int64 // bytes written, complete entries or not
	err     error // the first write error; nothing is written after it
}

const lineBufSize = 256 << 10

// add appends one entry made of parts (the last ending in '\n'). An entry too big
// for the buffer goes straight to the file after what is buffered, so a 200 KB
// message is not copied once more.
func (b *lineBuf) add(m mark, parts ...[]byte) error {
	if b.err != nil {
		return b.err
	}
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	// What is buffered goes first: an entry going straight to the file must follow
	// it (a 150 KB message after a buffered small one landed before it).
	if len(b.buf)+n > lineBufSize || n > lineBufSize/2 {
		if err := b.flush(); err != nil {
			return err
		}
	}
	if n > lineBufSize/2 {
		for _, p := range parts {
			k, err := b.w.Write(p)
			b.off += int64(k)
			if err != nil {
				b.err = plainErr(err)
				return b.err
			}
		}
		b.commit(m)
		b.doneOff = b.off
		return nil
	}
	for _, p := range parts {
		b.buf = append(b.buf, p...)
	}
	m.end = len(b.buf)
	b.marks = append(b.marks, m)
	return nil
}

// flush writes the buffer out; on a short write the entries that made it whole
// still count.
func (b *lineBuf) flush() error {
	if b.err != nil {
		return b.err
	}
	if len(b.buf) == 0 {
		return nil
	}
	k, err := b.w.Write(b.buf)
	base := b.off
	b.off += int64(k)
	for _, m := range b.marks {
		if m.end > k {
			break
		}
		b.commit(m)
		b.doneOff = base + int64(m.end)
	}
	if err == nil && k < len(b.buf) {
		err = io.ErrShortWrite
	}
	b.buf, b.marks = b.buf[:0], b.marks[:0]
	if err != nil {
		b.err = plainErr(err)
	}
	return b.err
}

// plainErr drops the temporary file's name from a write error: it means nothing to
// the user and is gone once the recording is published.
func plainErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

func (b *lineBuf) commit(m mark) {
	switch {
	case m.dir != 0:
		b.done.frames[m.dir]++
		if m.undelivered {
			b.done.undelivered++
		}
	case m.finding:
		b.done.findings++
	case m.segment:
		b.done.segments++
	}
}
