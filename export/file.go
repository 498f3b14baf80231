package export

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"

	"github.com/codexrec/codexrec/recorder"
)

// WriteFile writes the recordings at paths in format f (as WriteFiles, warn
// included) to a new file at path, 0600 since it holds recorded content; an
// existing file is an error wrapping fs.ErrExist unless replace. A file that could
// not be written whole is removed.
func WriteFile(path string, replace bool, f Format, paths []string, opts Options, warn func(name string, problems []recorder.Problem)) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if !replace {
		flags |= os.O_EXCL
	}
	out, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		if os.IsExist(err) {
			return fmt.Errorf("%s exists: %w", path, fs.ErrExist)
		}
		return err
	}
	bw := bufio.NewWriter(out)
	err = WriteFiles(bw, f, paths, opts, warn)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
