package recorder

import (
	"os"
	"syscall"
)

// writeback writes n bytes of f from off out to the disk and waits for them
// (sync_file_range), so that the fsync closing the recording has only its tail left.
func writeback(f *os.File, off, n int64) {
	const waitBefore, write, waitAfter = 1, 2, 4
	syscall.SyncFileRange(int(f.Fd()), off, n, waitBefore|write|waitAfter)
}
