package recorder

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Seekable is a path a reader that reads the recording at path more than once
// (a diff, a page, an export) can open for each pass: path itself, unless path is
// a pipe or a socket (`diff <(git show HEAD:r.jsonl) r.jsonl`, /dev/stdin), which
// is read to its end into a private temporary file (0600 in a 0700 directory)
// that done removes. A path that cannot be opened or examined is returned as it
// is, for the reader to say why. Errors are those of the copy.
func Seekable(path string) (src string, done func(), err error) {
	fi, err := os.Stat(path)
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return path, func() {}, nil
	}
	in, err := os.Open(path)
	if err != nil {
		return path, func() {}, nil
	}
	defer in.Close()
	dir, err := os.MkdirTemp("", "codexrec-pipe-")
	if err != nil {
		return "", nil, err
	}
	done = func() { os.RemoveAll(dir) }
	src = filepath.Join(dir, "recording.jsonl")
	out, err := os.OpenFile(src, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err == nil {
		_, err = io.Copy(out, in)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		done()
		return "", nil, fmt.Errorf("recording %s: %w", path, err)
	}
	return src, done, nil
}

// Files are the recordings under root, sorted: the regular files named *.jsonl
// (a symbolic link to one counts) at any depth. Anything else so named, a pipe or a
// device, is left out: opening a pipe waits for a writer, and a directory listing
// must not hang. err is the first error of the walk (what could be read is listed).
func Files(root string) (paths []string, err error) {
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, werr error) error {
		switch {
		case werr != nil:
			return werr
		case d.IsDir() || !strings.HasSuffix(p, ".jsonl"):
			return nil
		case d.Type().IsRegular():
			paths = append(paths, p)
		case d.Type()&fs.ModeSymlink != 0:
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				paths = append(paths, p)
			}
		}
		return nil
	})
	sort.Strings(paths)
	return paths, err
}
