package recorder

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// CheckTarget reports why a recording could not be published at path, before any
// work is done: the directory is missing, not a directory or not writable, or path
// exists (without force), or is something force must not replace (a directory, a
// device, a FIFO, a socket). Create calls it; a command may call it earlier, before
// starting a server.
func CheckTarget(path string, force bool) error {
	dir := filepath.Dir(path)
	di, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("recording %s: directory %s does not exist", path, dir)
	case err != nil:
		return fmt.Errorf("recording %s: directory %s: %w", path, dir, err)
	case !di.IsDir():
		return fmt.Errorf("recording %s: %s is not a directory", path, dir)
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("recording %s: %w", path, err)
	}
	if err := replaceable(path, fi); err != nil {
		return err
	}
	if !force {
		return fmt.Errorf("recording %s: %w", path, ErrExists)
	}
	return nil
}

// replaceable says whether --force may replace what is at path: a regular file, or
// a symbolic link (which is replaced, never followed).
func replaceable(path string, fi fs.FileInfo) error {
	m := fi.Mode()
	switch {
	case m.IsRegular(), m&fs.ModeSymlink != 0:
		return nil
	case m.IsDir():
		return fmt.Errorf("recording %s: %w: it is a directory", path, ErrNotReplaceable)
	case m&fs.ModeDevice != 0:
		return fmt.Errorf("recording %s: %w: it is a device", path, ErrNotReplaceable)
	case m&fs.ModeNamedPipe != 0:
		return fmt.Errorf("recording %s: %w: it is a FIFO", path, ErrNotReplaceable)
	case m&fs.ModeSocket != 0:
		return fmt.Errorf("recording %s: %w: it is a socket", path, ErrNotReplaceable)
	}
	return fmt.Errorf("recording %s: %w: its type is %v", path, ErrNotReplaceable, m.Type())
}

// writableDirError turns a failure to create the temporary file into an error about
// the directory, which is what the user can fix; the hidden file name means nothing
// to them.
func writableDirError(path string, err error) error {
	dir := filepath.Dir(path)
	switch {
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("recording %s: cannot create files in directory %s: permission denied", path, dir)
	case errors.Is(err, fs.ErrNotExist):
		if _, statErr := os.Stat(dir); statErr == nil {
			// The directory is there but takes no new files (/proc, a special file system).
			return fmt.Errorf("recording %s: cannot create files in directory %s", path, dir)
		}
		return fmt.Errorf("recording %s: directory %s does not exist", path, dir)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("recording %s: cannot create a file in directory %s: %w", path, dir, err)
}

// publish gives the finished file tmp its final name. Without force it never
// replaces anything: link(2) fails when the name exists, however late it appeared
// (there is no window between a check and the rename). When something did appear,
// the recording is published under the first free name path.N.ext instead, and the
// returned error (wrapping ErrExists) says where. It returns where the recording is.
//
// With force it replaces only what was at path when the session started (before,
// nil when nothing was): a recording another session published there meanwhile is
// kept, and this one goes to the next free name as without force.
func publish(tmp, path string, force bool, before fs.FileInfo) (string, error) {
	if force {
		fi, err := os.Lstat(path)
		if err == nil {
			if err := replaceable(path, fi); err != nil {
				return keepElsewhere(tmp, path, err)
			}
		}
		if err == nil && before != nil && os.SameFile(fi, before) {
			// rename(2) replaces a symbolic link itself, never its target.
			if err := os.Rename(tmp, path); err != nil {
				return tmp, fmt.Errorf("recording %s: publishing: %w; the recording is at %s", path, err, tmp)
			}
			return path, nil
		}
		// Nothing to replace any more, or something that was not there when the
		// session started: published as without force.
	}
	err := linkNoReplace(tmp, path)
	if err == nil {
		return path, nil
	}
	if errors.Is(err, fs.ErrExist) {
		why := "it appeared while recording"
		if force {
			why = "another recording was published there while recording; forcing replaces only what was there when recording started"
		}
		return keepElsewhere(tmp, path, fmt.Errorf("recording %s: %w (%s)", path, ErrExists, why))
	}
	return tmp, fmt.Errorf("recording %s: publishing: %w; the recording is at %s", path, err, tmp)
}

// keepElsewhere publishes tmp under the first free name beside path and returns why
// (cause) together with where the recording went.
func keepElsewhere(tmp, path string, cause error) (string, error) {
	dir, base := filepath.Split(path)
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	alt, err := linkFree(tmp, func(n int) string { return filepath.Join(dir, stem+"."+strconv.Itoa(n+1)+ext) })
	if err != nil {
		return tmp, &KeptElsewhereError{Wanted: path, Path: tmp, Err: cause}
	}
	return alt, &KeptElsewhereError{Wanted: path, Path: alt, Err: cause}
}

// Quarantine moves tmp, a finished recording that must not be published, to
// PATH.quarantine (PATH.1.quarantine, PATH.2... when that exists): a name no recording has and
// .gitignore patterns can cover. It returns the new path.
func Quarantine(tmp, path string) (string, error) {
	return linkFree(tmp, func(n int) string {
		if n == 1 {
			return path + ".quarantine"
		}
		return path + "." + strconv.Itoa(n-1) + ".quarantine"
	})
}

// linkFree gives tmp the first name(n), n = 1, 2, ..., that does not exist, without
// replacing any file (linkNoReplace), and returns it.
func linkFree(tmp string, name func(n int) string) (string, error) {
	for n := 1; n < 1000; n++ {
		alt := name(n)
		err := linkNoReplace(tmp, alt)
		if err == nil {
			return alt, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", fs.ErrExist
}

// linkNoReplace gives tmp the name path unless path exists, then drops the name tmp.
// Where hard links are not supported it falls back to a check then a rename, which
// leaves a short window in which a file created at path is replaced.
func linkNoReplace(tmp, path string) error {
	err := os.Link(tmp, path)
	if err == nil {
		os.Remove(tmp)
		return nil
	}
	if errors.Is(err, fs.ErrExist) {
		return err
	}
	if _, lerr := os.Lstat(path); lerr == nil {
		return fs.ErrExist
	} else if !errors.Is(lerr, fs.ErrNotExist) {
		return lerr
	}
	return os.Rename(tmp, path)
}

// KeptElsewhereError says that the recording could not be published where it was
// asked to be, and where it is instead. It wraps the reason (ErrExists when the
// target appeared during the session, ErrNotReplaceable).
type KeptElsewhereError struct {
	Wanted, Path string
	Err          error
}

func (e *KeptElsewhereError) Error() string {
	return fmt.Sprintf("%v; this recording is kept at %s", e.Err, e.Path)
}

func (e *KeptElsewhereError) Unwrap() error { return e.Err }
