package codexbin

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func tgz(entries ...tar.Header) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	for _, h := range entries {
		tw.WriteHeader(&h)
		if h.Typeflag == tar.TypeReg {
			tw.Write(bytes.Repeat([]byte("x"), int(h.Size)))
		}
	}
	tw.Close()
	zw.Close()
	return b.Bytes()
}

// FuzzUnpack: whatever the archive, unpack writes nothing outside its folder and
// leaves no link there that points out of it.
func FuzzUnpack(f *testing.F) {
	f.Add(tgz(tar.Header{Name: "package/vendor/bin/codex", Typeflag: tar.TypeReg, Mode: 0o755, Size: 3}))
	f.Add(tgz(tar.Header{Name: "../evil", Typeflag: tar.TypeReg, Size: 1}))
	f.Add(tgz(tar.Header{Name: "a", Typeflag: tar.TypeSymlink, Linkname: "b/c"}, tar.Header{Name: "a/d", Typeflag: tar.TypeReg, Size: 1}))
	f.Add(tgz(tar.Header{Name: "d/l", Typeflag: tar.TypeSymlink, Linkname: ".."}, tar.Header{Name: "d/l/x", Typeflag: tar.TypeSymlink, Linkname: ".."}))
	f.Add(tgz(tar.Header{Name: "/abs", Typeflag: tar.TypeReg, Size: 1}, tar.Header{Name: "h", Typeflag: tar.TypeLink, Linkname: "/etc/passwd"}))
	f.Add([]byte("not gzip"))
	f.Fuzz(func(t *testing.T, data []byte) {
		root := t.TempDir()
		src := filepath.Join(root, "p.tgz")
		if err := os.WriteFile(src, data, 0o600); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(root, "x")
		unpack(src, dir) // an error is fine; escaping is not
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if p == root || p == src {
				return nil
			}
			if p != dir && !strings.HasPrefix(p, dir+string(filepath.Separator)) {
				t.Fatalf("unpack wrote %s outside %s", p, dir)
			}
			if d != nil && d.Type()&os.ModeSymlink != 0 {
				if real, err := filepath.EvalSymlinks(p); err == nil && real != dir && !strings.HasPrefix(real, dir+string(filepath.Separator)) {
					t.Fatalf("link %s leads to %s, outside %s", p, real, dir)
				}
			}
			return nil
		})
	})
}
