package proxy

import (
	"os"
	"runtime"
	"syscall"
)

// fSetPipeSize is F_SETPIPE_SZ, which package syscall does not name.
const fSetPipeSize = 1031

// growPipe asks for a 1 MiB pipe (the default is 64 KiB): a 200 KB output delta
// then crosses in one read instead of four, and a burst costs a quarter of the
// wake-ups. It is a hint: beyond /proc/sys/fs/pipe-max-size, or past the user's pipe
// quota, the pipe keeps its size.
func growPipe(f *os.File) {
	syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), fSetPipeSize, 1<<20)
}

// tapperNice is how much lower the tapper thread's priority is than the pumps'.
const tapperNice = 5

// lowerPriority locks the calling goroutine to its thread and lowers that thread's
// priority, as the tapper's is: when the CPUs are busy, forwarding runs before
// recording work (the queue bounds how far the tapper may fall behind). Call it at
// the start of a goroutine doing recording work; the goroutine never unlocks, so the
// thread ends with it and no other goroutine runs at the lower priority. (Elsewhere
// than on Linux it does nothing.)
func lowerPriority() {
	runtime.LockOSThread()
	prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		return
	}
	// getpriority(2) returns 20-nice on Linux.
	syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), 20-prio+tapperNice)
}
