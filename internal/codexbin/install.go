package codexbin

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DefaultRegistry is the npm registry Install reads when Options.Registry is empty.
const DefaultRegistry = "https://registry.npmjs.org"

// Package is the npm package whose platform versions hold the native binaries.
const Package = "@openai/codex"

// ErrIntegrity is returned when a downloaded package does not match the registry's
// sha512 integrity hash.
var ErrIntegrity = errors.New("integrity mismatch")

// Limits on what Install accepts, far above a real package (about 100 MB packed).
const (
	maxTarball  = 1 << 30
	maxUnpacked = 4 << 30
	maxMetadata = 16 << 20
)

// defaultClient gives up on a registry that does not answer; a download that
// stalls is ended by the context (a user's Ctrl-C) or by the stall timer in download.
var defaultClient = func() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = time.Minute
	return &http.Client{Transport: t}
}()

// stallTimeout ends a download that received nothing for this long.
var stallTimeout = 2 * time.Minute

// Options says where Install fetches from and installs to. The zero value installs
// the running platform's binary from DefaultRegistry into CacheDir, silently.
type Options struct {
	Registry string       // npm registry base URL (default DefaultRegistry)
	Cache    string       // cache directory (default CacheDir())
	Platform *Platform    // default the running platform
	Client   *http.Client // default http.DefaultClient
	// Progress receives a progress line while the package downloads, rewritten in
	// place with carriage returns and ended with a newline.
	Progress io.Writer
}

// Installation is what Install did.
type Installation struct {
	Path       string // the native codex binary
	Downloaded bool   // false when it was already in the cache
	Bytes      int64  // the package's size when downloaded
	Integrity  string // the registry's integrity string that the package matched
}

// InstallAll installs each version in turn (Install) and writes the path of its
// binary on out, one line each; log, when set, is told of each download (version,
// size, integrity). It stops at the first error.
func InstallAll(ctx context.Context, versions []string, o Options, out, log io.Writer) error {
	for _, v := range versions {
		inst, err := Install(ctx, v, o)
		if err != nil {
			return err
		}
		if inst.Downloaded && log != nil {
			fmt.Fprintf(log, "installed codex %s (%.1f MB, %s)\n", v, float64(inst.Bytes)/1e6, inst.Integrity)
		}
		if _, err := fmt.Fprintln(out, inst.Path); err != nil {
			return err
		}
	}
	return nil
}

// Install puts the native codex binary of version in the cache unless it is there
// already, and returns its path. The package is downloaded and unpacked into a
// temporary folder beside its final place and moved there only once its sha512
// matches the registry's and the binary is in it: an error leaves the cache as it was.
func Install(ctx context.Context, version string, o Options) (Installation, error) {
	if err := checkVersion(version); err != nil {
		return Installation{}, err
	}
	plat := o.Platform
	if plat == nil {
		h, err := HostPlatform()
		if err != nil {
			return Installation{}, err
		}
		plat = &h
	}
	cache := o.Cache
	if cache == "" {
		var err error
		if cache, err = CacheDir(); err != nil {
			return Installation{}, err
		}
	}
	bin := plat.binaryIn(cache, version)
	if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() {
		return Installation{Path: bin}, nil
	}
	reg := strings.TrimRight(o.Registry, "/")
	if reg == "" {
		reg = DefaultRegistry
	}
	client := o.Client
	if client == nil {
		client = defaultClient
	}
	npmVersion := version + "-" + plat.NPM
	name := Package + "@" + npmVersion

	meta, err := metadata(ctx, client, reg, npmVersion)
	if err != nil {
		return Installation{}, fmt.Errorf("%s: %w", name, err)
	}
	want, err := sha512Of(meta.Dist.Integrity)
	if err != nil {
		return Installation{}, fmt.Errorf("%s: registry metadata: %w", name, err)
	}

	if err := os.MkdirAll(cache, 0o755); err != nil {
		return Installation{}, err
	}
	tmp, err := os.MkdirTemp(cache, ".install-"+npmVersion+"-")
	if err != nil {
		return Installation{}, err
	}
	defer os.RemoveAll(tmp)

	tgz := filepath.Join(tmp, "package.tgz")
	n, got, err := download(ctx, client, meta.Dist.Tarball, tgz, name, o.Progress)
	if err != nil {
		return Installation{}, fmt.Errorf("%s: downloading %s: %w", name, meta.Dist.Tarball, err)
	}
	if got != want {
		return Installation{}, fmt.Errorf("%s: %w: the download's sha512 is %s, the registry says %s (nothing installed)",
			name, ErrIntegrity, base64.StdEncoding.EncodeToString(got[:]), base64.StdEncoding.EncodeToString(want[:]))
	}
	unpacked := filepath.Join(tmp, "x")
	if err := unpack(tgz, unpacked); err != nil {
		return Installation{}, fmt.Errorf("%s: unpacking: %w", name, err)
	}
	if fi, err := os.Stat(filepath.Join(unpacked, plat.rel())); err != nil || !fi.Mode().IsRegular() {
		return Installation{}, fmt.Errorf("%s: the package has no binary at %s", name, filepath.ToSlash(plat.rel()))
	}
	if err := os.Remove(tgz); err != nil {
		return Installation{}, err
	}
	if err := publish(unpacked, plat.dir(cache, version), bin); err != nil {
		return Installation{}, err
	}
	return Installation{Path: bin, Downloaded: true, Bytes: n, Integrity: meta.Dist.Integrity}, nil
}

// publish moves the unpacked folder to dst. Another install that finished first wins;
// a dst without the binary (left by something else) is replaced.
func publish(src, dst, bin string) error {
	err := os.Rename(src, dst)
	if err == nil {
		return nil
	}
	if fi, serr := os.Stat(bin); serr == nil && fi.Mode().IsRegular() {
		return nil
	}
	if _, serr := os.Lstat(dst); serr != nil {
		return err
	}
	old := src + ".old"
	if err := os.Rename(dst, old); err != nil {
		return fmt.Errorf("replacing %s, which holds no binary: %w", dst, err)
	}
	if err := os.Rename(src, dst); err != nil {
		return err
	}
	return os.RemoveAll(old)
}

type npmVersion struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Dist    struct {
		Tarball   string `json:"tarball"`
		Integrity string `json:"integrity"`
	} `json:"dist"`
}

// metadata reads the registry's document of one version of the package.
func metadata(ctx context.Context, client *http.Client, reg, version string) (npmVersion, error) {
	u := reg + "/" + url.PathEscape(Package) + "/" + url.PathEscape(version)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return npmVersion{}, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return npmVersion{}, fmt.Errorf("registry: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return npmVersion{}, fmt.Errorf("not in the registry %s (no such codex version, or no package for this platform)", reg)
	}
	if resp.StatusCode != http.StatusOK {
		return npmVersion{}, fmt.Errorf("registry %s: %s", u, resp.Status)
	}
	var m npmVersion
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxMetadata)).Decode(&m); err != nil {
		return npmVersion{}, fmt.Errorf("registry %s: metadata is not JSON: %w", u, err)
	}
	if m.Name != Package || m.Version != version {
		return npmVersion{}, fmt.Errorf("registry %s: metadata names %s@%s", u, m.Name, m.Version)
	}
	t, err := url.Parse(m.Dist.Tarball)
	if err != nil || (t.Scheme != "https" && t.Scheme != "http") || t.Host == "" {
		return npmVersion{}, fmt.Errorf("registry %s: dist.tarball %q is not an http(s) URL", u, m.Dist.Tarball)
	}
	return m, nil
}

// sha512Of reads the sha512 digest out of an integrity string ("sha512-BASE64",
// possibly among other hashes separated by spaces).
func sha512Of(integrity string) ([sha512.Size]byte, error) {
	var d [sha512.Size]byte
	for _, f := range strings.Fields(integrity) {
		b64, ok := strings.CutPrefix(f, "sha512-")
		if !ok {
			continue
		}
		if i := strings.IndexByte(b64, '?'); i >= 0 {
			b64 = b64[:i]
		}
		raw, err := base64.StdEncoding.DecodeString(b64)
		if err != nil || len(raw) != sha512.Size {
			return d, fmt.Errorf("dist.integrity %q: not a sha512 digest", f)
		}
		copy(d[:], raw)
		return d, nil
	}
	return d, fmt.Errorf("dist.integrity %q has no sha512 hash", integrity)
}

// download writes the tarball to path and returns its size and sha512.
func download(ctx context.Context, client *http.Client, u, path, name string, progress io.Writer) (int64, [sha512.Size]byte, error) {
	var sum [sha512.Size]byte
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stall := time.AfterFunc(stallTimeout, func() { cancel(fmt.Errorf("no data for %s", stallTimeout)) })
	defer stall.Stop()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, sum, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, sum, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, sum, errors.New(resp.Status)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, sum, err
	}
	defer f.Close()
	h := sha512.New()
	p := &progressWriter{w: progress, name: name, total: resp.ContentLength, onData: func() { stall.Reset(stallTimeout) }}
	n, err := io.Copy(io.MultiWriter(f, h, p), io.LimitReader(resp.Body, maxTarball+1))
	p.done(err == nil)
	if err != nil {
		if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
			err = c
		}
		return n, sum, err
	}
	if n > maxTarball {
		return n, sum, fmt.Errorf("larger than %d bytes", maxTarball)
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return n, sum, fmt.Errorf("got %d of %d bytes", n, resp.ContentLength)
	}
	copy(sum[:], h.Sum(nil))
	return n, sum, f.Close()
}

// progressWriter prints "downloading NAME: 12.3 of 98.1 MB (12%)" at most every
// 200 ms.
type progressWriter struct {
	w      io.Writer
	onData func()
	name   string
	total  int64
	n      int64
	last   time.Time
	shown  bool
}

func (p *progressWriter) Write(b []byte) (int, error) {
	p.n += int64(len(b))
	if p.onData != nil {
		p.onData()
	}
	if p.w != nil && time.Since(p.last) >= 200*time.Millisecond {
		p.print()
	}
	return len(b), nil
}

func (p *progressWriter) print() {
	p.last = time.Now()
	p.shown = true
	mb := func(n int64) string { return fmt.Sprintf("%.1f", float64(n)/1e6) }
	if p.total > 0 {
		fmt.Fprintf(p.w, "\rdownloading %s: %s of %s MB (%d%%)", p.name, mb(p.n), mb(p.total), p.n*100/p.total)
	} else {
		fmt.Fprintf(p.w, "\rdownloading %s: %s MB", p.name, mb(p.n))
	}
}

func (p *progressWriter) done(ok bool) {
	if p.w == nil {
		return
	}
	if ok || p.shown {
		p.print()
		fmt.Fprintln(p.w)
	}
}

// unpack extracts a gzipped tar into dir, refusing entries that would land outside it
// (absolute or .. paths, links pointing up) and kinds other than files, folders and
// symbolic links.
func unpack(tgz, dir string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var total int64
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.FromSlash(strings.TrimPrefix(h.Name, "./"))
		if !filepath.IsLocal(name) {
			return fmt.Errorf("entry %q: outside the package", h.Name)
		}
		dst := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if total += h.Size; total > maxUnpacked {
				return fmt.Errorf("unpacks to more than %d bytes", int64(maxUnpacked))
			}
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			mode := os.FileMode(h.Mode)&0o755 | 0o600
			out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
			if err != nil {
				return fmt.Errorf("entry %q: %w", h.Name, err)
			}
			_, err = io.Copy(out, io.LimitReader(tr, h.Size))
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("entry %q: %w", h.Name, err)
			}
		case tar.TypeSymlink:
			target := filepath.FromSlash(h.Linkname)
			// Only links that point down from where they stand: a chain of them
			// cannot lead out of dir.
			if !filepath.IsLocal(target) {
				return fmt.Errorf("entry %q: link to %q outside the package", h.Name, h.Linkname)
			}
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(target, dst); err != nil {
				return fmt.Errorf("entry %q: %w", h.Name, err)
			}
		case tar.TypeXGlobalHeader:
		default:
			return fmt.Errorf("entry %q: unsupported kind %q", h.Name, h.Typeflag)
		}
	}
}
