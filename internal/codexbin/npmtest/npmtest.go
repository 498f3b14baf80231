// Package npmtest serves a stand-in for the npm registry to tests of codex installs:
// the registry's per-version metadata document (name, version, dist.tarball,
// dist.integrity) and the tarballs, over HTTP on loopback. It knows only what
// codexbin reads; it is no general npm registry.
package npmtest

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
)

// Package is one version of @openai/codex the registry serves.
type Package struct {
	Version string // the npm version: "0.171.0-linux-x64"
	Tarball string // path of the .tgz file to serve
	// Integrity overrides the dist.integrity the metadata gives (default: the
	// tarball's real sha512).
	Integrity string
}

// Registry is a running stand-in registry.
type Registry struct {
	*httptest.Server
	Downloads atomic.Int32 // tarball requests served
}

// Serve starts a registry serving pkgs until the test ends.
func Serve(t testing.TB, pkgs ...Package) *Registry {
	t.Helper()
	byVersion := map[string]Package{}
	for _, p := range pkgs {
		if p.Integrity == "" {
			p.Integrity = Integrity(t, p.Tarball)
		}
		byVersion[p.Version] = p
	}
	r := &Registry{}
	r.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if rest, ok := strings.CutPrefix(req.URL.Path, "/tarballs/"); ok {
			p, ok := byVersion[strings.TrimSuffix(rest, ".tgz")]
			if !ok {
				http.NotFound(w, req)
				return
			}
			r.Downloads.Add(1)
			http.ServeFile(w, req, p.Tarball)
			return
		}
		// Scoped names come escaped, as npm clients send them: /@openai%2Fcodex/VERSION.
		name, version, ok := strings.Cut(strings.TrimPrefix(req.URL.EscapedPath(), "/"), "/")
		if !ok || !strings.EqualFold(name, "@openai%2Fcodex") {
			http.NotFound(w, req)
			return
		}
		p, ok := byVersion[version]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":"version not found: `+version+`"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"name": "@openai/codex", "version": p.Version, "license": "Apache-2.0",
			"_id": "@openai/codex@" + p.Version,
			"dist": map[string]any{
				"integrity": p.Integrity,
				"shasum":    "0000000000000000000000000000000000000000",
				"tarball":   r.URL + "/tarballs/" + p.Version + ".tgz",
			},
		})
	}))
	r.Start() // after r.Server is set: the handler reads r.URL
	t.Cleanup(r.Close)
	return r
}

// Integrity is the npm integrity string ("sha512-BASE64") of the file at path.
func Integrity(t testing.TB, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha512.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return "sha512-" + base64.StdEncoding.EncodeToString(h.Sum(nil))
}

// Entry is one tar entry: a file with Body, or copied from the file at From, or a
// symbolic link to Link, or a folder when all three are empty and Name ends in /.
type Entry struct {
	Name string
	Mode int64
	Body string
	From string
	Link string
}

// Tarball writes a gzipped tar of entries into dir and returns its path. Files copied
// from disk are stored uncompressed (gzip level 0), so a test can pack a real codex
// binary without spending seconds compressing it.
func Tarball(t testing.TB, dir string, entries ...Entry) string {
	t.Helper()
	f, err := os.CreateTemp(dir, "pkg-*.tgz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw, _ := gzip.NewWriterLevel(f, gzip.NoCompression)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		h := &tar.Header{Name: e.Name, Mode: e.Mode}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		var src io.Reader = strings.NewReader(e.Body)
		switch {
		case e.Link != "":
			h.Typeflag, h.Linkname = tar.TypeSymlink, e.Link
		case e.From != "":
			sf, err := os.Open(e.From)
			if err != nil {
				t.Fatal(err)
			}
			defer sf.Close()
			fi, _ := sf.Stat()
			h.Typeflag, h.Size, src = tar.TypeReg, fi.Size(), sf
		case strings.HasSuffix(e.Name, "/"):
			h.Typeflag, h.Mode = tar.TypeDir, 0o755
		default:
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.Body))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := io.Copy(tw, src); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

// CodexEntries are the entries of a platform package whose binary (at
// package/vendor/TRIPLE/bin/codex) is a copy of the file at bin, or a shell script
// with body script when bin is empty.
func CodexEntries(triple, version, bin, script string) []Entry {
	e := Entry{Name: "package/vendor/" + triple + "/bin/codex", Mode: 0o755, From: bin, Body: script}
	return []Entry{
		{Name: "package/package.json", Body: `{"name":"@openai/codex","version":"` + version + `"}`},
		e,
	}
}
