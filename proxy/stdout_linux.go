package proxy

import (
	"os"
	"syscall"
)

// ReleaseStdout points the process's standard output at /dev/null, so that the
// reader of what it was (a client) sees EOF while the process goes on; os.Stdout
// stays usable and its descriptor is never reused for another file.
func ReleaseStdout() error {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	return syscall.Dup3(int(null.Fd()), int(os.Stdout.Fd()), 0)
}
