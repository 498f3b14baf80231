//go:build unix

package main

import (
	"io/fs"
	"syscall"
)

// unlinked reports whether the file fi describes has no name left (removed).
func unlinked(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink == 0
}
