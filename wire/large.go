package wire

// A line longer than largeMin is read into memory mapped outside the Go heap (on
// Linux), grown in place by the kernel (mremap) rather than by allocate-and-copy: a
// 100 MB line then costs 100 MB of memory, not the 2-3x that appending in the
// collected heap costs (the old buffer of each step lives until a collection, and
// freed pages stay resident). Such a buffer must be given back with Release.
const largeMin = 4 << 20

// growBuf returns buf with room for at least one more byte.
func growBuf(buf []byte) []byte {
	if cap(buf) >= largeMin {
		if b, ok := growLarge(buf); ok {
			return b
		}
	}
	return append(buf, 0)[:len(buf)]
}

// Release gives back the memory of a buffer Lines.Next returned, when it is a long
// line's mapped buffer (any slice of it); for any other buffer it does nothing, and
// the collector frees it as usual. Neither b nor anything sliced from its buffer may
// be used after Release.
func Release(b []byte) { releaseLarge(b) }

// IsLarge reports whether b is (a slice of) a mapped buffer that Release frees.
func IsLarge(b []byte) bool { return isLarge(b) }
