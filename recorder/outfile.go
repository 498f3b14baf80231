package recorder

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile writes an output file (a page, a report, a state file) the way a
// recording is published: write fills a temporary file in path's directory, created
// 0600 and given perm once complete, which then takes the name path. Nothing is ever
// written through a symbolic link: with replace, a link at path is itself replaced,
// never its target; without it, an existing path (however late it appeared) is
// an error wrapping ErrExists. A failure leaves no temporary file and path as it was:
// a crash never leaves half a file under path. perm 0 means 0600, for what holds
// recorded content.
func WriteFile(path string, replace bool, perm fs.FileMode, write func(io.Writer) error) error {
	if perm == 0 {
		perm = 0o600
	}
	if fi, err := os.Lstat(path); err == nil {
		if !replace {
			return fmt.Errorf("%s: %w", path, ErrExists)
		}
		if err := replaceable(path, fi); err != nil {
			return err
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("%s: %w", path, plainErr(err))
	}
	tmp := f.Name()
	err = write(f)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		if replace {
			err = os.Rename(tmp, path) // replaces a link itself
		} else if err = linkNoReplace(tmp, path); errors.Is(err, fs.ErrExist) {
			err = ErrExists
		}
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%s: %w", path, plainErr(err))
	}
	return nil
}
