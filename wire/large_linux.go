package wire

import (
	"sync"
	"syscall"
	"unsafe"
)

// mapped holds the mapped buffers by their first byte's address, with their sizes.
var mapped struct {
	sync.Mutex
	size map[uintptr]int
}

const mremapMayMove = 1

func growLarge(buf []byte) ([]byte, bool) {
	newCap := 2 * cap(buf)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	mapped.Lock()
	defer mapped.Unlock()
	if size, ok := mapped.size[base]; ok {
		addr, _, errno := syscall.Syscall6(syscall.SYS_MREMAP, base, uintptr(size), uintptr(newCap), mremapMayMove, 0, 0)
		if errno != 0 {
			return nil, false
		}
		delete(mapped.size, base)
		mapped.size[addr] = newCap
		return sliceAt(addr, newCap)[:len(buf)], true
	}
	b, err := syscall.Mmap(-1, 0, newCap, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, false
	}
	// syscall.Munmap would want this very slice back; the buffer is freed by address
	// (it moves when it grows), so syscall's own bookkeeping is not used.
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if mapped.size == nil {
		mapped.size = map[uintptr]int{}
	}
	mapped.size[addr] = newCap
	return append(b[:0], buf...), true
}

// sliceAt is the n bytes mapped at addr. The memory is not the collector's, so the
// pointer made from an address is not one it could move or free.
func sliceAt(addr uintptr, n int) []byte {
	return unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&addr))), n)
}

// find returns the mapping holding b, or 0.
func find(b []byte) (base uintptr, size int) {
	if cap(b) == 0 {
		return 0, 0
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b[:cap(b)])))
	mapped.Lock()
	defer mapped.Unlock()
	for a, n := range mapped.size {
		if p >= a && p < a+uintptr(n) {
			return a, n
		}
	}
	return 0, 0
}

func isLarge(b []byte) bool {
	a, _ := find(b)
	return a != 0
}

func releaseLarge(b []byte) {
	a, n := find(b)
	if a == 0 {
		return
	}
	mapped.Lock()
	delete(mapped.size, a)
	mapped.Unlock()
	syscall.Syscall(syscall.SYS_MUNMAP, a, uintptr(n), 0)
}
