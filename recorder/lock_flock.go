//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package recorder

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on the file being written, released when the
// writer closes it or dies: a reader then tells a live writer from a killed one.
func lockFile(f *os.File) {
	syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// writerAlive reports whether a process still holds the writer's lock on path;
// known is false where the platform cannot tell.
func writerAlive(path string) (alive, known bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return false, true, err
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
	if err == syscall.EWOULDBLOCK {
		return true, true, nil
	}
	if err != nil {
		return false, false, nil // a file system without locks
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false, true, nil
}
