//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package recorder

import (
	"os"
	"strings"
	"syscall"
)

// createLocked creates the temporary file (mode 0600) a writer writes, named after
// pattern as os.CreateTemp does, and holds an exclusive lock on it, released when the
// writer closes it or dies: a reader then tells a live writer from a killed one. The
// file is made under a name readers do not look for (pattern and "~") and renamed to
// its own once locked, so no reader ever sees it unlocked and takes the writer for
// dead. The lock waits for a reader's probe (a shared lock, held for an instant)
// rather than failing.
func createLocked(dir, pattern string) (f *os.File, name string, err error) {
	f, err = os.CreateTemp(dir, pattern+"~")
	if err != nil {
		return nil, "", err
	}
	fail := func(err error) (*os.File, string, error) {
		f.Close()
		os.Remove(f.Name())
		return nil, "", err
	}
	if err := f.Chmod(0o600); err != nil {
		return fail(err)
	}
	// A file system without locks (EOPNOTSUPP, ENOLCK) still records; readers then
	// cannot tell, and say so.
	syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
	name = strings.TrimSuffix(f.Name(), "~")
	if err := os.Rename(f.Name(), name); err != nil {
		return fail(err)
	}
	return f, name, nil
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
