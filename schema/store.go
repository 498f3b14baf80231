package schema

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"time"
)

// The embedded schemas are content-addressed: versions/objects.zip holds each distinct
// file once, named by its sha256, and each version's set is the list
// versions/VERSION/SET.sha256 of paths and sums (written by internal/schemagen). Most
// files do not change between releases, so eight versions cost little more than one.

var readObjects = sync.OnceValues(func() (map[string]*zip.File, error) {
	b, err := embedded.ReadFile("versions/objects.zip")
	if err != nil {
		return nil, fmt.Errorf("schema: embedded objects: %w", err)
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, fmt.Errorf("schema: embedded objects: %w", err)
	}
	out := make(map[string]*zip.File, len(zr.File))
	for _, f := range zr.File {
		out[f.Name] = f
	}
	return out, nil
})

// listFS is one set: the files a sha256 list names, read from the object store. It
// implements fs.ReadDirFS so fs.WalkDir and fs.ReadFile work on it.
type listFS struct {
	files map[string]*zip.File // path to object
	dirs  map[string][]fs.DirEntry
}

// newListFS builds a set's file system from its sha256 list ("SUM  PATH" per line).
func newListFS(list []byte, objects map[string]*zip.File) (*listFS, error) {
	l := &listFS{files: map[string]*zip.File{}, dirs: map[string][]fs.DirEntry{".": nil}}
	for n, line := range strings.Split(strings.TrimRight(string(list), "\n"), "\n") {
		sum, p, ok := strings.Cut(line, "  ")
		if !ok || !fs.ValidPath(p) || p == "." {
			return nil, fmt.Errorf("line %d: not \"SUM  PATH\"", n+1)
		}
		f := objects[sum]
		if f == nil {
			return nil, fmt.Errorf("line %d: %s: object %s missing from the store", n+1, p, sum)
		}
		l.files[p] = f
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if _, seen := l.dirs[d]; seen {
				break
			}
			l.dirs[d] = nil
			l.dirs[path.Dir(d)] = append(l.dirs[path.Dir(d)], dirEntry{name: path.Base(d), dir: true})
		}
		l.dirs[path.Dir(p)] = append(l.dirs[path.Dir(p)], dirEntry{name: path.Base(p), size: int64(f.UncompressedSize64)})
	}
	for _, es := range l.dirs {
		sort.Slice(es, func(i, j int) bool { return es[i].Name() < es[j].Name() })
	}
	return l, nil
}

func (l *listFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if f, ok := l.files[name]; ok {
		r, err := f.Open()
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return &objectFile{ReadCloser: r, info: dirEntry{name: path.Base(name), size: int64(f.UncompressedSize64)}}, nil
	}
	if es, ok := l.dirs[name]; ok {
		return &dirFile{info: dirEntry{name: path.Base(name), dir: true}, entries: es}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

func (l *listFS) ReadDir(name string) ([]fs.DirEntry, error) {
	es, ok := l.dirs[name]
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	return append([]fs.DirEntry(nil), es...), nil
}

// dirEntry is both the fs.DirEntry and the fs.FileInfo of a listed file or directory.
type dirEntry struct {
	name string
	dir  bool
	size int64
}

func (e dirEntry) Name() string               { return e.name }
func (e dirEntry) IsDir() bool                { return e.dir }
func (e dirEntry) Type() fs.FileMode          { return e.Mode().Type() }
func (e dirEntry) Info() (fs.FileInfo, error) { return e, nil }
func (e dirEntry) Size() int64                { return e.size }
func (e dirEntry) ModTime() time.Time         { return time.Time{} }
func (e dirEntry) Sys() any                   { return nil }
func (e dirEntry) Mode() fs.FileMode {
	if e.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}

type objectFile struct {
	io.ReadCloser
	info dirEntry
}

func (f *objectFile) Stat() (fs.FileInfo, error) { return f.info, nil }

type dirFile struct {
	info    dirEntry
	entries []fs.DirEntry
	off     int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: fs.ErrInvalid}
}
func (d *dirFile) Close() error { return nil }

func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.entries[d.off:]
	if n <= 0 {
		d.off = len(d.entries)
		return append([]fs.DirEntry(nil), rest...), nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	if n > len(rest) {
		n = len(rest)
	}
	d.off += n
	return append([]fs.DirEntry(nil), rest[:n]...), nil
}
