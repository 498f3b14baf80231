package main_test

import (
	"os"
	"syscall"
)

// growPipe asks for a 1 MiB pipe (F_SETPIPE_SZ), as record does for its own.
func growPipe(f *os.File) {
	syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), 1031, 1<<20)
}
