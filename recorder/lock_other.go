//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package recorder

import "os"

// createLocked creates the temporary file (mode 0600) a writer writes; there is no
// lock here, so readers cannot tell a killed writer from a live one.
func createLocked(dir, pattern string) (*os.File, string, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, "", err
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, "", err
	}
	return f, f.Name(), nil
}

func writerAlive(path string) (alive, known bool, err error) {
	_, err = os.Stat(path)
	return false, false, err
}
