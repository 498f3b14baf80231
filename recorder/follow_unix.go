//go:build unix

package recorder

import (
	"os"
	"syscall"
)

// unlinked reports whether the file behind fi has no name left (an aborted
// recording's temporary file).
func unlinked(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink == 0
}
