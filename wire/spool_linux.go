package wire

import (
	"os"
	"syscall"
	"unsafe"
)

// spool is the unfinished part of a long line in an unlinked temporary file (in
// TMPDIR). The file's pages are the kernel's page cache, written back and dropped
// under memory pressure; the finished line is mapped read-only-shared for the tap
// (copy on write, should a tap write into it) and counts as the process's memory
// only while it is tapped.
type spool struct {
	f *os.File
	n int
}

// newSpool starts a spool holding start, or returns nil when no temporary file can
// be made (the line then stays in memory).
func newSpool(start []byte) *spool {
	f, err := os.CreateTemp("", "codexrec-line-*")
	if err != nil {
		return nil
	}
	os.Remove(f.Name())
	s := &spool{f: f}
	if n := s.write(start); n < len(start) {
		f.Close()
		return nil
	}
	return s
}

// write appends b and returns how much of it was written: less than all of it when
// the file system refused (full, quota).
func (s *spool) write(b []byte) int {
	n, _ := s.f.Write(b)
	s.n += n
	return n
}

// unspool reads the spooled bytes back into memory and closes the file.
func (s *spool) unspool() []byte {
	defer s.f.Close()
	buf := make([]byte, 0, ReadBufferSize)
	for cap(buf) < s.n {
		buf = growBuf(buf[:cap(buf)])
	}
	buf = buf[:s.n]
	// Bytes the file took but cannot give back would be lost to the tap (never to
	// the far side, which has them already): zeros stand in, and the frame fails to
	// parse where they are.
	s.f.ReadAt(buf, 0)
	return buf
}

// finish maps the finished line and closes the file (the mapping keeps it).
func (s *spool) finish() []byte {
	b, err := syscall.Mmap(int(s.f.Fd()), 0, s.n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		return s.unspool()
	}
	s.f.Close()
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	mapped.Lock()
	if mapped.size == nil {
		mapped.size = map[uintptr]int{}
	}
	mapped.size[addr] = s.n
	mapped.Unlock()
	return b
}
