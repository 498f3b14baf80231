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

	"github.com/codexrec/codexrec/schema/internal/delta"
)

// The embedded schemas are content-addressed: versions/objects.zip holds each distinct
// file once, named by its sha256, and each version's set is the list
// versions/VERSION/SET.sha256 of paths and sums (written by internal/schemagen). Most
// files do not change between releases, so eight versions cost little more than one;
// a file that changed is mostly stored as a delta against the next release's
// (an object named SUM.d: "base SUM" then internal/delta's line copies and literals).
// The newest release is stored whole: a session of unknown version, checked against
// it, decodes no delta; an older release decodes one step per newer release.

// objectStore reads objects, resolving deltas. It keeps the objects it decoded, up
// to cacheBytes, so the releases of a delta chain are decoded once.
type objectStore struct {
	files map[string]*zip.File

	mu     sync.Mutex
	cache  map[string][]byte
	cached int
}

const cacheBytes = 32 << 20

const deltaSuffix = ".d"

var readObjects = sync.OnceValues(func() (*objectStore, error) {
	zr, err := zip.NewReader(strings.NewReader(objectsZip), int64(len(objectsZip)))
	if err != nil {
		return nil, fmt.Errorf("schema: embedded objects: %w", err)
	}
	st := &objectStore{files: make(map[string]*zip.File, len(zr.File)), cache: map[string][]byte{}}
	for _, f := range zr.File {
		st.files[f.Name] = f
	}
	return st, nil
})

func (st *objectStore) has(sum string) bool {
	return st.files[sum] != nil || st.files[sum+deltaSuffix] != nil
}

// read returns an object's content (shared: callers must not modify it); a delta's
// base chain is at most one object per embedded release and set.
func (st *objectStore) read(sum string) ([]byte, error) {
	st.mu.Lock()
	b, ok := st.cache[sum]
	st.mu.Unlock()
	if ok {
		return b, nil
	}
	b, err := st.decode(sum, 0)
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	if st.cached+len(b) > cacheBytes {
		st.cache, st.cached = map[string][]byte{}, 0
	}
	st.cache[sum] = b
	st.cached += len(b)
	st.mu.Unlock()
	return b, nil
}

func (st *objectStore) decode(sum string, depth int) ([]byte, error) {
	if depth > 64 {
		return nil, fmt.Errorf("object %s: delta chain too long", sum)
	}
	if f := st.files[sum]; f != nil {
		return readZipFile(f)
	}
	f := st.files[sum+deltaSuffix]
	if f == nil {
		return nil, fmt.Errorf("object %s missing from the store", sum)
	}
	d, err := readZipFile(f)
	if err != nil {
		return nil, err
	}
	line, rest, ok := bytes.Cut(d, []byte("\n"))
	base, ok2 := bytes.CutPrefix(line, []byte("base "))
	if !ok || !ok2 {
		return nil, fmt.Errorf("object %s: no base line", sum)
	}
	b, err := st.decode(string(base), depth+1)
	if err != nil {
		return nil, err
	}
	out, err := delta.Decode(b, rest)
	if err != nil {
		return nil, fmt.Errorf("object %s: %w", sum, err)
	}
	return out, nil
}

// readZipFile reads a stored object into a buffer of its recorded size (io.ReadAll's
// doubling cleared and copied about three times the bytes of the large schemas).
func readZipFile(f *zip.File) ([]byte, error) {
	r, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if f.UncompressedSize64 > maxObject {
		return nil, fmt.Errorf("object %s: %d bytes, more than any schema", f.Name, f.UncompressedSize64)
	}
	b := make([]byte, f.UncompressedSize64)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	// The end, read past the last byte, is where the zip reader checks the CRC.
	if n, err := r.Read(make([]byte, 1)); n > 0 || err != io.EOF {
		if err == nil || err == io.EOF {
			err = fmt.Errorf("object %s: longer than its recorded %d bytes", f.Name, f.UncompressedSize64)
		}
		return nil, err
	}
	return b, nil
}

// maxObject bounds an embedded object's size (the largest is under 2 MB).
const maxObject = 64 << 20

// listFS is one set: the files a sha256 list names, read from the object store. It
// implements fs.ReadDirFS so fs.WalkDir and fs.ReadFile work on it.
type listFS struct {
	store *objectStore
	files map[string]string // path to object sum
	dirs  map[string][]fs.DirEntry
}

// newListFS builds a set's file system from its sha256 list ("SUM  PATH" per line).
func newListFS(list []byte, store *objectStore) (*listFS, error) {
	l := &listFS{store: store, files: map[string]string{}, dirs: map[string][]fs.DirEntry{".": nil}}
	for n, line := range strings.Split(strings.TrimRight(string(list), "\n"), "\n") {
		sum, p, ok := strings.Cut(line, "  ")
		if !ok || !fs.ValidPath(p) || p == "." {
			return nil, fmt.Errorf("line %d: not \"SUM  PATH\"", n+1)
		}
		if !store.has(sum) {
			return nil, fmt.Errorf("line %d: %s: object %s missing from the store", n+1, p, sum)
		}
		l.files[p] = sum
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if _, seen := l.dirs[d]; seen {
				break
			}
			l.dirs[d] = nil
			l.dirs[path.Dir(d)] = append(l.dirs[path.Dir(d)], dirEntry{name: path.Base(d), dir: true})
		}
		l.dirs[path.Dir(p)] = append(l.dirs[path.Dir(p)], dirEntry{name: path.Base(p), fs: l, path: p})
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
	if sum, ok := l.files[name]; ok {
		b, err := l.store.read(sum)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return &objectFile{Reader: bytes.NewReader(b), info: dirEntry{name: path.Base(name), size: int64(len(b)), sized: true}}, nil
	}
	if es, ok := l.dirs[name]; ok {
		return &dirFile{info: dirEntry{name: path.Base(name), dir: true}, entries: es}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// readShared returns a file's content like fs.ReadFile, without the copy when fsys
// is an embedded set: the object store's bytes, shared, which the caller must not
// modify (the schema files are megabytes, read on each session's first messages).
func readShared(fsys fs.FS, name string) ([]byte, error) {
	l, ok := fsys.(*listFS)
	if !ok {
		return fs.ReadFile(fsys, name)
	}
	sum, ok := l.files[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	b, err := l.store.read(sum)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return b, nil
}

func (l *listFS) ReadDir(name string) ([]fs.DirEntry, error) {
	es, ok := l.dirs[name]
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	return append([]fs.DirEntry(nil), es...), nil
}

// dirEntry is both the fs.DirEntry and the fs.FileInfo of a listed file or directory.
// A file's size is known once it was read (its object may be a delta).
type dirEntry struct {
	name  string
	dir   bool
	size  int64
	sized bool
	fs    *listFS
	path  string
}

func (e dirEntry) Name() string               { return e.name }
func (e dirEntry) IsDir() bool                { return e.dir }
func (e dirEntry) Type() fs.FileMode          { return e.Mode().Type() }
func (e dirEntry) Info() (fs.FileInfo, error) { return e, nil }
func (e dirEntry) Size() int64 {
	if e.sized || e.fs == nil {
		return e.size
	}
	b, err := e.fs.store.read(e.fs.files[e.path])
	if err != nil {
		return 0
	}
	return int64(len(b))
}
func (e dirEntry) ModTime() time.Time { return time.Time{} }
func (e dirEntry) Sys() any           { return nil }
func (e dirEntry) Mode() fs.FileMode {
	if e.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}

type objectFile struct {
	*bytes.Reader
	info dirEntry
}

func (f *objectFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *objectFile) Close() error               { return nil }

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
